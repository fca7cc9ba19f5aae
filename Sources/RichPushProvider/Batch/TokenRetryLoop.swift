import Foundation
import RichPushCore

/// A provider's per-token result as the retry loop fills it in (`APNsResult`, `FCMSendResult`).
protocol DeliveredTokenResult: PushTokenResult {
    var outcome: PushOutcome { get set }
    var status: Int? { get set }
    var attempts: Int { get set }
    var message: String? { get set }
    var unexpectedBody: String? { get set }

    /// A result with no answer read yet.
    /// - Parameters:
    ///   - deviceToken: the token.
    ///   - outcome: the outcome so far.
    ///   - attempts: requests made.
    ///   - message: what to do, if anything.
    init(deviceToken: String, outcome: PushOutcome, attempts: Int, message: String?)
}

/// What a provider makes of one answer to a token's request.
enum AnswerVerdict: Sendable, Equatable {
    /// Final: the classifier set the outcome and the message.
    case finished
    /// The credential was refused: renew it once and send again.
    case renewCredential
    /// Send again after a backoff (never sooner than `Retry-After`), while attempts remain.
    case retry
}

/// A credential that cannot be had (the key cannot sign, the token endpoint refused, a second
/// renewal): the token ends `configuration_error` with this message; when the failure is
/// temporary (the token endpoint answered 5xx or 429), it ends `retries_exhausted` instead:
/// nothing in the settings is wrong, sending later can work.
struct CredentialRefusal: Error, Sendable {
    /// What to fix, or what failed.
    var message: String
    /// Whether the failure is the token endpoint's, for now (`RichPushError` `transport`).
    var temporary = false

    /// What the token ends as.
    var outcome: PushOutcome { temporary ? .retriesExhausted : .configurationError }
}

/// The provider's part of the retry loop: how to send one token's request, and what each
/// answer means. `APNsAnswerClassifier`, `FCMAnswerClassifier`.
protocol TokenAnswerClassifier: Sendable {
    /// The result type the provider reports.
    associatedtype Result: DeliveredTokenResult
    /// What a request carries to authenticate (a provider token, an access token).
    associatedtype Credential: Sendable

    /// The provider, for messages.
    var provider: PushProvider { get }

    /// The credential for a request about to be sent.
    /// - Parameters:
    ///   - current: the one the last request carried, if any.
    ///   - renewed: whether `current` is a renewal (then it is kept).
    /// - Returns: the credential (`nil`: none needed, e.g. certificate auth).
    /// - Throws: `CredentialRefusal` when none can be had.
    func credential(current: Credential?, renewed: Bool) async throws(CredentialRefusal) -> Credential?

    /// A fresh credential after the provider refused `stale` (once per token).
    /// - Parameters:
    ///   - stale: the credential refused.
    ///   - alreadyRenewed: whether it was already renewed for this token.
    ///   - answer: the refusal, parsed.
    /// - Returns: the credential for the next request (`nil`: fetch one then).
    /// - Throws: `CredentialRefusal` when a renewal cannot help.
    func renew(_ stale: Credential?, alreadyRenewed: Bool, answer: RichPushJSONValue) async throws(CredentialRefusal) -> Credential?

    /// The request for one token.
    func request(to token: String, credential: Credential?) -> TransportRequest

    /// Reads an answer into `result` (ids, reason, timestamp) and decides; a final verdict has
    /// set the outcome and message (and told the token-state handler).
    /// - Parameters:
    ///   - response: the answer (its status is already in `result`).
    ///   - json: its body parsed (`.null` when empty or not JSON).
    ///   - result: the token's result so far.
    func read(_ response: TransportResponse, json: RichPushJSONValue, into result: inout Result) async -> AnswerVerdict

    /// Whether a first answer is one that stops the batch (a configuration error).
    func isStopAnswer(_ answer: TransportResponse) -> Bool

    /// Whether a request whose answer was lost (`answer_unknown`: written, then no answer) may be
    /// sent again: only when the notification carries a collapse id (`apns-collapse-id`), so a
    /// device that got both shows one. Otherwise the token ends `unknown`, never sent twice.
    var resendsAfterLostAnswer: Bool { get }
}

/// The one per-token retry machine of the APNs and FCM clients: send, classify the answer,
/// renew the credential once, back off and retry (at most `PushRetryPolicy.maxAttempts`
/// requests, never sooner than `Retry-After`), stop on a TLS setup that cannot work.
struct TokenRetryLoop<Classifier: TokenAnswerClassifier>: Sendable {
    let classifier: Classifier
    let transport: any HTTPTransport
    let retry: PushRetryPolicy

    /// Sends to one token until a final result.
    /// - Parameters:
    ///   - token: the device token, as sent.
    ///   - result: the result to fill in (no attempts yet).
    ///   - firstResponse: the answer to a first request already sent (by the batch path), used
    ///     as attempt 1 instead of sending it again.
    ///   - credential: the credential that first request carried.
    ///   - pause: the batch's pause, held for a `Retry-After` answer.
    /// - Returns: the final result.
    func deliver(
        to token: String, result initial: Classifier.Result, firstResponse: Swift.Result<TransportResponse, any Error>? = nil,
        credential sent: Classifier.Credential? = nil, pause: BatchPause? = nil
    ) async -> Classifier.Result {
        var result = initial
        var credential = sent
        var renewed = false
        var pending = firstResponse
        // An earlier attempt was written and its answer lost: the provider may have it.
        var answerLost = false
        while true {
            if pending == nil {
                do {
                    credential = try await classifier.credential(current: credential, renewed: renewed)
                } catch {
                    return Self.refused(result, error)
                }
            }
            result.attempts += 1
            let response: TransportResponse
            do {
                if let first = pending {
                    pending = nil
                    response = try first.get()
                } else {
                    response = try await transport.send(classifier.request(to: token, credential: credential))
                }
            } catch {
                if let failure = error as? RichPushError, failure.code == .tlsConfiguration {
                    // Retrying cannot fix a certificate: stop with what to fix.
                    result.status = nil
                    return Self.refused(result, CredentialRefusal(message: failure.message))
                }
                if let failure = error as? RichPushError, failure.code == .answerUnknown, !classifier.resendsAfterLostAnswer {
                    // Written, no answer: the provider may have it. Sending it again could show it
                    // twice on the device, so it is not sent again.
                    result.outcome = .unknown
                    result.status = nil
                    result.message =
                        "\(failure.message); not sent again, so the device shows it at most once (a notification with an apns-collapse-id is sent again: the device then shows one)"
                    return result
                }
                if let failure = error as? RichPushError, failure.code == .answerUnknown { answerLost = true }
                if result.attempts < retry.maxAttempts {
                    await Self.sleep(retry.delay(beforeRetry: result.attempts))
                    continue
                }
                result.outcome = answerLost ? .unknown : .retriesExhausted
                result.status = nil
                result.message =
                    "no answer after \(result.attempts) attempts: \(error)"
                    + (answerLost ? "; an attempt was written and its answer lost, so the device may have it (once: the collapse id)" : "")
                return result
            }
            result.status = response.status
            let parsed = response.body.isEmpty ? nil : try? RichPushJSONValue.parse(response.body)
            result.unexpectedBody = response.status != 200 && !response.body.isEmpty && parsed?.objectValue == nil ? ResponseExcerpt.make(response) : nil
            let json = parsed ?? .null
            switch await classifier.read(response, json: json, into: &result) {
            case .finished:
                return result
            case .renewCredential:
                do {
                    credential = try await classifier.renew(credential, alreadyRenewed: renewed, answer: json)
                    renewed = true
                } catch {
                    return Self.refused(result, error)
                }
            case .retry:
                if result.attempts < retry.maxAttempts {
                    let retryAfter = RetryAfter.seconds(response.headers["retry-after"])
                    if let retryAfter { pause?.hold(seconds: retryAfter) }
                    await Self.sleep(retry.delay(beforeRetry: result.attempts, retryAfter: retryAfter))
                    continue
                }
                result.outcome = answerLost ? .unknown : .retriesExhausted
                result.message =
                    "\(classifier.provider.displayName) still answered \(response.status) \(result.reasonCode ?? "") after \(result.attempts) attempts; try again later"
                    + (answerLost ? " (an earlier attempt was written and its answer lost: the device may have it, once: the collapse id)" : "")
                    + Self.unexpectedBodyNote(result, classifier.provider)
                return result
            }
        }
    }

    /// "; the answer was not APNs JSON (…)" when the answer was not the provider's JSON, else "".
    static func unexpectedBodyNote(_ result: Classifier.Result, _ provider: PushProvider) -> String {
        result.unexpectedBody != nil ? "; the answer was not \(provider.displayName) JSON (its start is shown once after the batch)" : ""
    }

    /// A credential refusal's end: `configuration_error`, or `retries_exhausted` (no status) when
    /// it was temporary.
    private static func refused(_ result: Classifier.Result, _ refusal: CredentialRefusal) -> Classifier.Result {
        var result = result
        result.outcome = refusal.outcome
        if refusal.temporary { result.status = nil }
        result.message = refusal.message
        return result
    }

    private static func sleep(_ seconds: Double) async {
        guard seconds > 0 else { return }
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
