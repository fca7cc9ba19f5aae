import Foundation
import RichPushCore

/// Sends notifications to APNs over HTTP/2: one connection, many concurrent streams, one cached
/// provider token, and every documented status and reason handled as Apple says.
///
/// ```swift
/// let key = try ES256Signer(contentsOf: URL(fileURLWithPath: "AuthKey_ABC123DEFG.p8"))
/// let tokens = APNsTokenManager(signer: key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
/// let client = try APNsClient(environment: .sandbox, authentication: .token(tokens))
/// defer { client.shutdown() }
/// let result = try await client.send(APNsNotification(payload: payload.jsonData(), topic: "com.example.app"), to: hexToken)
/// ```
///
/// - 200: `accepted`.
/// - 403 `ExpiredProviderToken`: the JWT is renewed once and the request retried (never a second
///   renewal within 20 minutes: that would earn `TooManyProviderTokenUpdates`).
/// - 429 `TooManyRequests`, 500, 503, `IdleTimeout`, a dropped connection: retried with
///   exponential backoff and full jitter, at most `APNsRetryPolicy.maxAttempts` requests.
/// - 410 `Unregistered` / `ExpiredToken`: the token-state handler marks the token inactive, unless
///   the app registered it again after APNs' `timestamp`.
/// - `BadDeviceToken` / `DeviceTokenNotForTopic`: the handler marks it bad, with a sandbox vs
///   production hint.
/// - Configuration and request errors (`InvalidProviderToken`, `TopicDisallowed`, `MissingTopic`,
///   `BadTopic`, `BadCertificate`, `BadCollapseId`, …): `configuration_error`, and a batch stops.
/// - Unknown reasons: `rejected`, the reason kept verbatim.
public final class APNsClient: Sendable {
    /// Where requests go.
    public let environment: APNsEnvironment
    private let authentication: APNsAuthentication
    private let transport: any HTTPTransport
    private let retry: APNsRetryPolicy
    private let tokenStateHandler: (any DeviceTokenStateHandler)?
    private let linter: RichPushPayloadLinter
    private let batchWindow: Int
    /// What messages call the settings (the program's own names, or described in words).
    public let settingNames: APNsSettingNames

    /// Makes a client with its own HTTP/2 client (`HTTP2Client`: libnghttp2 + OpenSSL, Linux).
    ///
    /// - Parameters:
    ///   - environment: production, sandbox, or a custom endpoint (`http://` uses HTTP/2 prior knowledge).
    ///   - authentication: token (`.p8`) or client certificate.
    ///   - transport: trust (`caFile`), bounds (`maxConcurrentStreams`), timeouts.
    ///   - retry: backoff for 429 / 5xx.
    ///   - tokenStateHandler: told about inactive and bad tokens.
    ///   - linter: the checks run before sending (media key paths).
    ///   - settingNames: what messages call the settings (default: described in words).
    /// - Throws: `RichPushError` with code `transport` (the HTTP/2 event loop cannot start),
    ///   `tls_configuration` (the CA file or client certificate cannot be used) or `unsupported`.
    public convenience init(
        environment: APNsEnvironment, authentication: APNsAuthentication,
        transport: TransportConfiguration = TransportConfiguration(), retry: APNsRetryPolicy = APNsRetryPolicy(),
        tokenStateHandler: (any DeviceTokenStateHandler)? = nil, linter: RichPushPayloadLinter = RichPushPayloadLinter(),
        settingNames: APNsSettingNames = .descriptive
    ) throws {
        var configuration = transport
        if environment.baseURL.lowercased().hasPrefix("http://") { configuration.httpVersion = .http2PriorKnowledge }
        if let certificate = authentication.certificate { configuration.clientCertificate = certificate }
        #if canImport(CNGHTTP2) && os(Linux)
        let http = try HTTP2Client(configuration: configuration)
        #else
        throw RichPushError(code: .unsupported, message: "the APNs transport needs libnghttp2 and OpenSSL (Linux); on Apple platforms pass a transport")
        #endif
        self.init(
            environment: environment, authentication: authentication, httpTransport: http, retry: retry,
            tokenStateHandler: tokenStateHandler, linter: linter,
            // One batch fills every connection's window.
            batchWindow: configuration.maxConcurrentStreams * max(1, configuration.connections), settingNames: settingNames
        )
    }

    /// Makes a client over a given transport.
    ///
    /// - Parameters:
    ///   - environment: where requests go.
    ///   - authentication: token or client certificate (the certificate must then be in the transport).
    ///   - httpTransport: the transport.
    ///   - retry: backoff for 429 / 5xx.
    ///   - tokenStateHandler: told about inactive and bad tokens.
    ///   - linter: the checks run before sending.
    ///   - batchWindow: tokens per transport batch when sending to many tokens (default 500); up
    ///     to three batches are queued at once, the transport bounds the concurrent streams.
    ///   - settingNames: what messages call the settings (default: described in words).
    public init(
        environment: APNsEnvironment, authentication: APNsAuthentication, httpTransport: any HTTPTransport,
        retry: APNsRetryPolicy = APNsRetryPolicy(), tokenStateHandler: (any DeviceTokenStateHandler)? = nil,
        linter: RichPushPayloadLinter = RichPushPayloadLinter(), batchWindow: Int = 500, settingNames: APNsSettingNames = .descriptive
    ) {
        self.environment = environment
        self.authentication = authentication
        self.transport = httpTransport
        self.retry = retry
        self.tokenStateHandler = tokenStateHandler
        self.linter = linter
        self.batchWindow = max(1, batchWindow)
        self.settingNames = settingNames
    }

    /// Connections opened so far (1 when every request was multiplexed on one connection).
    public var connectionsOpened: Int { transport.connectionsOpened }

    /// What the connections went through (GOAWAYs, resends, lost answers), when the transport counts it.
    public var connectionStatistics: HTTP2ClientStatistics? { transport.connectionStatistics }

    /// Closes the connection and stops the transport thread.
    public func shutdown() { transport.shutdown() }

    /// Shuts down as `shutdown()`, then waits until the transport's thread has freed its
    /// connections and its libcurl and OpenSSL state; call it before the process exits, whose
    /// OpenSSL cleanup must not run while that thread still does.
    public func close() async { await transport.close() }

    /// Sends one notification to one device token.
    ///
    /// - Parameters:
    ///   - notification: the payload and headers; linted first.
    ///   - deviceToken: the hex device token (64 hex digits today; any even length ≥ 64 is accepted).
    /// - Returns: the result; a configuration error is `outcome == .configurationError` with a
    ///   message saying what to fix.
    /// - Throws: `RichPushError` with code `payload_rejected` or `invalid_request` when the
    ///   notification fails the checks (nothing is sent).
    public func send(_ notification: APNsNotification, to deviceToken: String) async throws -> APNsResult {
        _ = try notification.validate(linter: linter)
        return await deliver(notification, to: deviceToken)
    }

    /// Sends one notification to many device tokens over the one connection.
    ///
    /// - Parameters:
    ///   - notification: the payload and headers; linted once, before any request.
    ///   - deviceTokens: the hex tokens.
    ///   - progress: called with (done, total) as results arrive.
    /// - Returns: one result per token in the given order, the `sent` / `accepted` counts, and
    ///   `stoppedBy` when the batch stopped: a configuration error, or the host unreachable
    ///   (later tokens: `not_sent`).
    /// - Throws: `RichPushError` with code `payload_rejected` or `invalid_request` (nothing sent).
    public func send(
        _ notification: APNsNotification, to deviceTokens: [String],
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async throws -> APNsBatchResult {
        let (final, summary) = try await InOrderResults.collect(
            deviceTokens, progress: progress,
            notSent: { APNsResult(deviceToken: $0, outcome: .notSent, attempts: 0, message: InOrderResults.notSentMessage) },
            send: { source, onResult in
                try await send(notification, tokens: source, onResult: onResult)
            }
        )
        var batch = APNsBatchResult(results: final, stoppedBy: summary.stoppedBy)
        batch.unexpectedBody = summary.unexpectedBody
        return batch
    }

    /// Sends one notification to a stream of device tokens, reading them only as room frees up,
    /// and hands each result over as soon as it is known (memory stays flat for any number of
    /// tokens: `richpush send --tokens FILE`).
    ///
    /// - Parameters:
    ///   - notification: the payload and headers; linted once, before any request.
    ///   - tokens: where the hex tokens come from.
    ///   - onResult: called once per token, in the order results become known (not the source
    ///     order), with the token's 0-based position in the source.
    /// - Returns: the totals; `stoppedBy` says why the batch stopped early (configuration error,
    ///   unreachable host, unreadable source), and every token after that is reported `not_sent`.
    /// - Throws: `RichPushError` with code `payload_rejected` or `invalid_request` (nothing sent).
    public func send(
        _ notification: APNsNotification, tokens: any DeviceTokenSource,
        onResult: (_ index: Int, _ result: APNsResult) -> Void
    ) async throws -> PushBatchSummary {
        _ = try notification.validate(linter: linter)
        let loop = retryLoop(for: notification)
        let batch = TokenBatch(
            chunkSize: batchWindow, endpoint: environment.description, loop: loop,
            firstAttempts: { [self] tokens in await sendFirstAttempts(notification, to: tokens) }, pause: BatchPause()
        )
        return await batch.run(tokens, onResult: onResult)
    }

    /// Tokens in a row with no answer at all (every attempt failed to connect or timed out)
    /// after which a batch gives up: no new token is sent, the ones already on their way (up to
    /// three windows of `maxConcurrentStreams`) finish, the remaining tokens are `not_sent`, and
    /// `stoppedBy` says why. A batch in which no token got any answer sets `stoppedBy` too,
    /// however few tokens it had.
    public static let tokensWithoutAnswerBeforeGivingUp = 5

    /// Whether a string is a device token APNs could accept: hex digits, even length, ≥ 64.
    /// - Parameter token: the candidate.
    /// - Returns: `true` when it has that form.
    public static func isWellFormedDeviceToken(_ token: String) -> Bool {
        token.utf8.count >= 64 && token.utf8.count % 2 == 0 && token.utf8.count <= 400
            && token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }
    }

    // MARK: Batches

    /// Sends the first request for each token as one transport batch (one provider-token lookup,
    /// one header list, one suspension) and finishes the 200s.
    private func sendFirstAttempts(_ notification: APNsNotification, to deviceTokens: [String]) async -> [TokenBatch<APNsAnswerClassifier>
        .FirstAttempt]
    {
        var providerToken: APNsTokenManager.Token?
        if let manager = authentication.tokenManager {
            do {
                providerToken = try await manager.token()
            } catch {
                return deviceTokens.map { token in
                    var result = APNsResult(deviceToken: token, outcome: .configurationError, attempts: 0)
                    result.message = "cannot sign the provider token: \(error)"
                    return .finished(result)
                }
            }
        }
        let headers = notification.headers(bearer: providerToken?.jwt)
        var attempts: [TokenBatch<APNsAnswerClassifier>.FirstAttempt?] = []
        attempts.reserveCapacity(deviceTokens.count)
        var requests: [TransportRequest] = []
        requests.reserveCapacity(deviceTokens.count)
        var sentTokens: [String] = []
        sentTokens.reserveCapacity(deviceTokens.count)
        let devicePrefix = environment.baseURL + "/3/device/"
        for raw in deviceTokens {
            let token = Self.normalized(raw)
            guard Self.isWellFormedDeviceToken(token) else {
                attempts.append(.finished(Self.malformed(token)))
                continue
            }
            attempts.append(nil)
            sentTokens.append(token)
            requests.append(TransportRequest(method: "POST", url: devicePrefix + Self.lowercasedHex(token), headers: headers, body: notification.payload))
        }
        let responses = await transport.send(batch: requests)
        var sent = 0
        return attempts.map { attempt in
            if let attempt { return attempt }
            let token = sentTokens[sent], response = responses[sent]
            sent += 1
            if case .success(let answer) = response, answer.status == 200 {
                var result = APNsResult(deviceToken: token, outcome: .accepted, attempts: 1)
                result.status = 200
                result.apnsID = answer.headers["apns-id"] ?? notification.apnsID?.uuidString.lowercased()
                return .finished(result)
            }
            return .continued(token: token, response: response, credential: providerToken)
        }
    }

    /// A well-formed token in lower case (APNs paths are written so), without a new string when
    /// it already is (the common case: apps send lower-case hex).
    private static func lowercasedHex(_ token: String) -> String {
        token.utf8.contains { (65...70).contains($0) } ? token.lowercased() : token
    }

    private static func normalized(_ deviceToken: String) -> String {
        // The common case without looking at Characters (grapheme breaking costs per token):
        // first and last bytes are ASCII letters or digits, so there is no blank to trim.
        let utf8 = deviceToken.utf8
        if let first = utf8.first, let last = utf8.last, Self.isASCIIAlphanumeric(first), Self.isASCIIAlphanumeric(last) {
            return deviceToken
        }
        return deviceToken.first?.isWhitespace == true || deviceToken.last?.isWhitespace == true
            ? deviceToken.trimmingCharacters(in: .whitespaces) : deviceToken
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }

    private static func malformed(_ token: String) -> APNsResult {
        var result = APNsResult(deviceToken: token, outcome: .tokenBad, attempts: 0)
        result.reason = .badDeviceToken
        result.message =
            "not sent: a device token is an even number (≥ 64) of hex digits, as the app gets it from didRegisterForRemoteNotificationsWithDeviceToken"
        return result
    }

    // MARK: One token, with retries

    /// The retry loop for one notification.
    private func retryLoop(for notification: APNsNotification) -> TokenRetryLoop<APNsAnswerClassifier> {
        let classifier = APNsAnswerClassifier(
            notification: notification, environment: environment, authentication: authentication, tokenStateHandler: tokenStateHandler,
            settingNames: settingNames, resendsSafely: notification.resendsSafely)
        return TokenRetryLoop(classifier: classifier, transport: transport, retry: retry)
    }

    /// Sends to one token until a final result: retries, one provider-token renewal, token state.
    private func deliver(_ notification: APNsNotification, to deviceToken: String) async -> APNsResult {
        let token = Self.normalized(deviceToken)
        guard Self.isWellFormedDeviceToken(token) else { return Self.malformed(token) }
        let start = APNsResult(deviceToken: token, outcome: .rejected, attempts: 0, message: nil)
        return await retryLoop(for: notification).deliver(to: token, result: start)
    }
}
