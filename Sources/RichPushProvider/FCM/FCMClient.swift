import Foundation
import RichPushCore

/// Sends messages with FCM HTTP v1 (`POST /v1/projects/{project}/messages:send`), one request
/// per registration token, many at once over one HTTP/2 connection, with one cached OAuth2
/// access token, and every FCM error code mapped to the outcomes APNs uses:
///
/// - 200: `accepted` (the message name is kept).
/// - 404 `UNREGISTERED`: `token_inactive`; the token-state handler is told.
/// - 400 `INVALID_ARGUMENT` about the token, 403 `SENDER_ID_MISMATCH`: `token_bad`.
/// - 429 `QUOTA_EXCEEDED`, 503 `UNAVAILABLE`, 500 `INTERNAL`, other 5xx, a dropped connection:
///   retried with exponential backoff and full jitter, never sooner than `Retry-After`
///   (new tokens wait too), at most `FCMRetryPolicy.maxAttempts` requests.
/// - 401: the access token is fetched again once; `THIRD_PARTY_AUTH_ERROR` (FCM has no APNs
///   key for the app), 403 without a code, 404 without a code (no such project), and an
///   `INVALID_ARGUMENT` about the message: `configuration_error`, and a batch stops.
/// - Unknown codes (`UNSPECIFIED_ERROR`, …): `rejected`, the code kept verbatim.
public final class FCMClient: Sendable {
    /// Google's FCM endpoint.
    public static let defaultEndpoint = "https://fcm.googleapis.com"

    private let account: FCMServiceAccount
    private let endpoint: String
    private let tokens: FCMAccessTokenProvider
    private let transport: any HTTPTransport
    /// Where access tokens are fetched (the same transport unless another was given).
    private let tokenTransport: any HTTPTransport
    private let retry: FCMRetryPolicy
    private let tokenStateHandler: (any DeviceTokenStateHandler)?
    private let linter: RichPushPayloadLinter
    private let batchWindow: Int
    private let settingNames: FCMSettingNames

    /// Makes a client over a given transport.
    ///
    /// - Parameters:
    ///   - account: the service account (project id, key, token URI).
    ///   - endpoint: the FCM base URL (a test server in tests).
    ///   - transport: the HTTP transport for messages.
    ///   - tokenTransport: the transport for the OAuth2 token endpoint (default: `transport`).
    ///   - clock: the clock for the access-token cache.
    ///   - retry: backoff for `QUOTA_EXCEEDED`, `UNAVAILABLE`, `INTERNAL`, 5xx.
    ///   - tokenStateHandler: told about unregistered and bad tokens.
    ///   - linter: the checks run on the APNs payload before sending.
    ///   - batchWindow: tokens per transport batch (default 500).
    ///   - settingNames: what messages call the settings (default: described in words).
    /// - Throws: `RichPushError` with code `invalid_key`.
    public init(
        account: FCMServiceAccount, endpoint: String = FCMClient.defaultEndpoint, transport: any HTTPTransport,
        tokenTransport: (any HTTPTransport)? = nil, clock: any ProviderClock = SystemClock(), retry: FCMRetryPolicy = FCMRetryPolicy(),
        tokenStateHandler: (any DeviceTokenStateHandler)? = nil, linter: RichPushPayloadLinter = RichPushPayloadLinter(), batchWindow: Int = 500,
        settingNames: FCMSettingNames = .descriptive
    ) throws {
        self.account = account
        var base = endpoint
        while base.hasSuffix("/") { base.removeLast() }
        self.endpoint = base
        self.transport = transport
        self.tokenTransport = tokenTransport ?? transport
        self.tokens = try FCMAccessTokenProvider(account: account, transport: tokenTransport ?? transport, clock: clock)
        self.retry = retry
        self.tokenStateHandler = tokenStateHandler
        self.linter = linter
        self.batchWindow = max(1, batchWindow)
        self.settingNames = settingNames
    }

    /// Makes a client with its own HTTP/2 client for messages (`HTTP2Client`: libnghttp2 +
    /// OpenSSL; an `http://` endpoint, a local mock, is HTTP/2 without TLS by prior knowledge) and
    /// libcurl for the OAuth2 token endpoint (HTTP/1.1 or HTTP/2, as Google's answers) (Linux).
    ///
    /// - Parameters:
    ///   - account: the service account (`tokenURI` may be overridden for a test server).
    ///   - endpoint: the FCM base URL.
    ///   - transport: trust (`caFile`), bounds (`maxConcurrentStreams`, `connections`), timeouts.
    ///   - retry: backoff for `QUOTA_EXCEEDED`, `UNAVAILABLE`, `INTERNAL`, 5xx.
    ///   - tokenStateHandler: told about unregistered and bad tokens.
    ///   - linter: the checks run on the APNs payload before sending.
    ///   - settingNames: what messages call the settings (default: described in words).
    /// - Throws: `RichPushError` with code `invalid_key`, `tls_configuration`, `transport` or `unsupported`.
    public convenience init(
        account: FCMServiceAccount, endpoint: String = FCMClient.defaultEndpoint, transport: TransportConfiguration,
        retry: FCMRetryPolicy = FCMRetryPolicy(), tokenStateHandler: (any DeviceTokenStateHandler)? = nil,
        linter: RichPushPayloadLinter = RichPushPayloadLinter(), settingNames: FCMSettingNames = .descriptive
    ) throws {
        #if canImport(CNGHTTP2) && os(Linux)
        let http = try HTTP2Client(configuration: transport)
        let oauth: any HTTPTransport
        do {
            // Its failures name the token endpoint (the service account's token_uri), never
            // the FCM or APNs URL setting, and show it without credentials or query.
            var tokenEndpoint = transport
            tokenEndpoint.settingNames.url = "the service account's token_uri"
            oauth = try CurlHTTPTransport(configuration: tokenEndpoint, describe: { FCMAccessTokenProvider.displayURL($0) })
        } catch {
            http.shutdown()
            throw error
        }
        #else
        throw RichPushError(code: .unsupported, message: "the FCM transport needs libnghttp2, OpenSSL and libcurl (Linux); on Apple platforms pass a transport")
        #endif
        try self.init(
            account: account, endpoint: endpoint, transport: http, tokenTransport: oauth, retry: retry, tokenStateHandler: tokenStateHandler,
            linter: linter, batchWindow: transport.maxConcurrentStreams * max(1, transport.connections), settingNames: settingNames
        )
    }

    /// The access-token cache (for its fetch count).
    public var accessTokens: FCMAccessTokenProvider { tokens }

    /// The Firebase project messages go to.
    public var projectID: String { account.projectID }

    /// Connections opened so far.
    public var connectionsOpened: Int { transport.connectionsOpened }

    /// What the connections went through (GOAWAYs, resends, lost answers), when the transport counts it.
    public var connectionStatistics: HTTP2ClientStatistics? { transport.connectionStatistics }

    /// Closes the connections and stops the transport thread.
    public func shutdown() {
        transport.shutdown()
        if tokenTransport as AnyObject !== transport as AnyObject { tokenTransport.shutdown() }
    }

    /// Shuts down as `shutdown()`, then waits until the transport's thread has freed its
    /// connections and its libcurl and OpenSSL state; call it before the process exits, whose
    /// OpenSSL cleanup must not run while that thread still does.
    public func close() async {
        await transport.close()
        if tokenTransport as AnyObject !== transport as AnyObject { await tokenTransport.close() }
    }

    private var sendURL: String { endpoint + "/v1/projects/" + account.projectID + "/messages:send" }

    /// Sends one message once (no retries); on 401 the access token is fetched again once.
    ///
    /// - Parameter message: the message (with its `token`).
    /// - Returns: FCM's answer (`isAccepted`, or the error code verbatim).
    /// - Throws: `RichPushError` with code `oauth` or `transport`.
    public func send(_ message: FCMMessage) async throws -> FCMResult {
        var retriedAuth = false
        while true {
            let bearer = try await tokens.accessToken()
            let response = try await transport.send(request(body: message.requestBody.jsonData(), bearer: bearer))
            if response.status == 401, !retriedAuth {
                retriedAuth = true
                await tokens.invalidate(bearer)
                continue
            }
            let json = (try? RichPushJSONValue.parse(response.body)) ?? .null
            var result = FCMResult(status: response.status, name: json["name"]?.stringValue)
            let error = FCMResponseHandling.ErrorBody(json)
            result.message = error.message
            result.errorCode = json["error"] == nil ? nil : error.code
            return result
        }
    }

    /// Sends one message to many registration tokens.
    ///
    /// - Parameters:
    ///   - message: the message (its `token` is ignored); the APNs payload is linted once first.
    ///   - registrationTokens: the FCM registration tokens.
    ///   - progress: called with (done, total) as results arrive.
    /// - Returns: one result per token in the given order, and `stoppedBy` when the batch stopped.
    /// - Throws: `RichPushError` `payload_rejected` when the APNs payload fails the checks.
    public func send(
        _ message: FCMMessage, to registrationTokens: [String],
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async throws -> FCMBatchResult {
        let (final, summary) = try await InOrderResults.collect(
            registrationTokens, progress: progress,
            notSent: { FCMSendResult(deviceToken: $0, outcome: .notSent, attempts: 0, message: InOrderResults.notSentMessage) },
            send: { source, onResult in
                try await send(message, tokens: source, onResult: onResult)
            }
        )
        return FCMBatchResult(results: final, stoppedBy: summary.stoppedBy, unexpectedBody: summary.unexpectedBody)
    }

    /// Sends one message to a stream of registration tokens, reading them as room frees up and
    /// handing each result over as soon as it is known (memory stays flat for any count).
    ///
    /// - Parameters:
    ///   - message: the message (its `token` is ignored); the APNs payload is linted once first.
    ///   - tokens: where the registration tokens come from.
    ///   - onResult: called once per token as results become known, with its 0-based position.
    /// - Returns: the totals; `stoppedBy` when the batch stopped (later tokens: `not_sent`).
    /// - Throws: `RichPushError` `payload_rejected` when the APNs payload fails the checks.
    public func send(
        _ message: FCMMessage, tokens source: any DeviceTokenSource,
        onResult: (_ index: Int, _ result: FCMSendResult) -> Void
    ) async throws -> PushBatchSummary {
        var linter = self.linter
        linter.voip = message.apnsHeaders["apns-push-type"] == "voip"
        let errors = linter.lint(message.apnsPayload).filter { $0.severity == .error }
        if !errors.isEmpty {
            throw RichPushError(code: .payloadRejected, message: "the payload was not sent: " + errors.map(\.description).joined(separator: "; "))
        }
        let template = message.bodyTemplate()
        let classifier = FCMAnswerClassifier(
            template: template, sendURL: sendURL, projectID: account.projectID, tokens: tokens, tokenStateHandler: tokenStateHandler,
            settingNames: settingNames, resendsAfterLostAnswer: message.apnsHeaders["apns-collapse-id"] != nil)
        let batch = TokenBatch(
            chunkSize: batchWindow, endpoint: "FCM (\(endpoint))", loop: TokenRetryLoop(classifier: classifier, transport: transport, retry: retry),
            firstAttempts: { [self] tokens in await sendFirstAttempts(template, to: tokens) }, pause: BatchPause()
        )
        return await batch.run(source, onResult: onResult)
    }

    // MARK: Requests

    private func request(body: Data, bearer: String) -> TransportRequest {
        FCMAnswerClassifier.request(url: sendURL, body: body, bearer: bearer)
    }

    /// Sends the first request of each token of a chunk with one access token; finishes the 200s.
    private func sendFirstAttempts(_ template: (prefix: [UInt8], suffix: [UInt8]), to registrationTokens: [String]) async -> [TokenBatch<FCMAnswerClassifier>
        .FirstAttempt]
    {
        let bearer: String
        do {
            bearer = try await tokens.accessToken()
        } catch {
            // As the retry loop ends a refused credential: a temporary failure of the token
            // endpoint is retries_exhausted (as FCM's own 5xx is), the batch gives up after a run.
            let refusal = FCMAnswerClassifier.refusal(error)
            return registrationTokens.map {
                .finished(FCMSendResult(deviceToken: $0, outcome: refusal.outcome, attempts: 0, message: refusal.message))
            }
        }
        var attempts: [TokenBatch<FCMAnswerClassifier>.FirstAttempt?] = []
        attempts.reserveCapacity(registrationTokens.count)
        var requests: [TransportRequest] = []
        var sentTokens: [String] = []
        for raw in registrationTokens {
            let token = raw.trimmingCharacters(in: .whitespaces)
            guard Self.isPlausibleRegistrationToken(token) else {
                attempts.append(
                    .finished(
                        FCMSendResult(
                            deviceToken: token, outcome: .tokenBad, attempts: 0,
                            message:
                                "not sent: an FCM registration token is 1…4096 printable ASCII characters without spaces, as the app gets it from Messaging.messaging().token"
                        )))
                continue
            }
            attempts.append(nil)
            sentTokens.append(token)
            requests.append(request(body: FCMMessage.body(template, token: token), bearer: bearer))
        }
        let responses = await transport.send(batch: requests)
        var sent = 0
        return attempts.map { attempt in
            if let attempt { return attempt }
            let token = sentTokens[sent], response = responses[sent]
            sent += 1
            if case .success(let answer) = response, answer.status == 200,
                let name = (try? RichPushJSONValue.parse(answer.body))?["name"]?.stringValue
            {
                var result = FCMSendResult(deviceToken: token, outcome: .accepted, status: 200, attempts: 1)
                result.messageName = name
                return .finished(result)
            }
            return .continued(token: token, response: response, credential: bearer)
        }
    }

    /// Whether a string could be an FCM registration token: 1…4096 bytes of printable ASCII
    /// without blanks (they are about 160 characters of `[A-Za-z0-9_:-]` today).
    /// - Parameter token: the candidate.
    /// - Returns: `true` when it has that form.
    public static func isPlausibleRegistrationToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= 4096 && token.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }
}
