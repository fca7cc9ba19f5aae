import Foundation
import RichPushCore

/// Manages broadcast channels and sends broadcast push notifications (iOS 18 Live Activities):
/// channel requests go to the management host, broadcasts to the broadcast host, both over
/// RichPush's own HTTP/2 client with the same provider token as device pushes.
///
/// ```swift
/// let channels = try APNsBroadcastClient(bundleID: "com.example.app", environment: .sandbox, authentication: .token(tokens))
/// let channel = try await channels.createChannel(policy: .noMessageStored)
/// var update = LiveActivityPayload(event: .update, contentState: .object(["score": .int(1)]))
/// try await channels.broadcast(APNsBroadcastNotification(payload: update.jsonData(), channelID: channel.id, priority: .immediately),
///                              policy: channel.policy)
/// try await channels.deleteChannel(channel.id)
/// ```
///
/// Apple, "Sending channel management requests to APNs": create `POST /1/apps/<bundle>/channels`
/// with `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}` → 201 and `apns-channel-id`;
/// read `GET` the same path with `apns-channel-id` → 200 and the policy; delete `DELETE` with
/// `apns-channel-id` → 204; list `GET /1/apps/<bundle>/all-channels` → 200 `{"channels": [...]}`.
/// "Sending broadcast push notification requests to APNs": `POST /4/broadcasts/apps/<bundle>`
/// with `apns-channel-id`, `apns-push-type: liveactivity`, `apns-priority`, `apns-expiration`; 200.
///
/// Retries (`retry`): 429 and 503 (APNs did nothing) and requests that never reached APNs are
/// sent again with backoff; a 500 or a lost answer is sent again only when a second copy is
/// harmless (read, list, delete, and a broadcast that carries no alert), never a create (a second
/// channel would count against the 10,000). `ExpiredProviderToken` renews the token once.
/// Every failure is an `APNsChannelError` with a stable code and what to do.
public final class APNsBroadcastClient: Sendable {
    /// What the client reads of an answer's body, in bytes (4 MiB): room for the list of
    /// 10,000 channels (Apple's limit per app and environment) whatever their ids' length.
    public static let maximumListBytes = 4 << 20

    /// The app's bundle id (the path's `<bundle id>`; no `.push-type.liveactivity` suffix).
    public let bundleID: String
    /// Where requests go.
    public let environment: APNsBroadcastEnvironment
    private let authentication: APNsAuthentication
    private let transport: any HTTPTransport
    private let retry: APNsRetryPolicy

    /// Makes a client with its own HTTP/2 client (`HTTP2Client`: libnghttp2 + OpenSSL, Linux).
    ///
    /// - Parameters:
    ///   - bundleID: the app's bundle id (a `.push-type.liveactivity` suffix is removed).
    ///   - environment: production, sandbox, or custom URLs (`http://` uses HTTP/2 prior knowledge).
    ///   - authentication: token (`.p8`) or client certificate.
    ///   - transport: trust (`caFile`), streams, timeouts.
    ///   - retry: backoff for 429 / 5xx.
    /// - Throws: `RichPushError` `tls_configuration` or `transport` when the HTTP/2 client cannot
    ///   start, `unsupported` off Linux.
    public convenience init(
        bundleID: String, environment: APNsBroadcastEnvironment, authentication: APNsAuthentication,
        transport: TransportConfiguration = TransportConfiguration(), retry: APNsRetryPolicy = APNsRetryPolicy()
    ) throws {
        var configuration = transport
        if environment.managementURL.lowercased().hasPrefix("http://") || environment.broadcastURL.lowercased().hasPrefix("http://") {
            configuration.httpVersion = .http2PriorKnowledge
        }
        if let certificate = authentication.certificate { configuration.clientCertificate = certificate }
        // The list of 10,000 channels (Apple's limit) is far over the 16 KiB a device answer may be.
        configuration.maximumResponseBodyBytes = max(configuration.maximumResponseBodyBytes, Self.maximumListBytes)
        #if canImport(CNGHTTP2) && os(Linux)
        let http = try HTTP2Client(configuration: configuration)
        #else
        throw RichPushError(code: .unsupported, message: "the APNs transport needs libnghttp2 and OpenSSL (Linux); on Apple platforms pass a transport")
        #endif
        self.init(bundleID: bundleID, environment: environment, authentication: authentication, httpTransport: http, retry: retry)
    }

    /// Makes a client over a given transport.
    ///
    /// - Parameters:
    ///   - bundleID: the app's bundle id.
    ///   - environment: where requests go.
    ///   - authentication: token or client certificate (the certificate must then be in the transport).
    ///   - httpTransport: the transport.
    ///   - retry: backoff for 429 / 5xx.
    public init(
        bundleID: String, environment: APNsBroadcastEnvironment, authentication: APNsAuthentication, httpTransport: any HTTPTransport,
        retry: APNsRetryPolicy = APNsRetryPolicy()
    ) {
        var bundle = bundleID.trimmingCharacters(in: .whitespaces)
        if bundle.hasSuffix(APNsNotification.liveActivityTopicSuffix) { bundle.removeLast(APNsNotification.liveActivityTopicSuffix.count) }
        self.bundleID = bundle
        self.environment = environment
        self.authentication = authentication
        self.transport = httpTransport
        self.retry = retry
    }

    /// Closes the connections; later requests fail.
    public func shutdown() { transport.shutdown() }

    /// Shuts down as `shutdown()` and waits until the transport's thread has freed its connections.
    public func close() async { await transport.close() }

    /// Creates a channel.
    ///
    /// - Parameter policy: its `message-storage-policy` (fixed for the channel's life).
    /// - Returns: the channel: the id APNs made (`apns-channel-id`) and the policy.
    /// - Throws: `APNsChannelError`: `channel_limit_reached` at 10,000 channels (Apple),
    ///   `feature_not_enabled`, `provider_configuration`, `answer_unknown` (it may exist: list
    ///   the channels), …
    public func createChannel(policy: APNsMessageStoragePolicy) async throws -> APNsChannel {
        let body = RichPushJSONValue.object(["message-storage-policy": .int(policy.rawValue), "push-type": .string("LiveActivity")])
        let answer = try await perform(.create, channelID: nil, body: body.jsonData(sortedKeys: true), resendable: false)
        guard let id = answer.response.headers["apns-channel-id"], !id.isEmpty else {
            throw APNsChannelError(
                .unexpectedAnswer, operation: .create, status: answer.response.status, requestID: answer.requestID, attempts: answer.attempts,
                message: "APNs answered 201 without an apns-channel-id header: the channel cannot be used; list the channels to find it")
        }
        return APNsChannel(id: id, policy: policy, requestID: answer.requestID)
    }

    /// Reads a channel's storage policy.
    ///
    /// - Parameter channelID: the channel id.
    /// - Returns: the channel with the policy APNs keeps for it.
    /// - Throws: `APNsChannelError` (`channel_not_registered` when it does not exist, …).
    public func readChannel(_ channelID: String) async throws -> APNsChannel {
        let answer = try await perform(.read, channelID: channelID, body: Data(), resendable: true)
        let json = try? RichPushJSONValue.parse(answer.response.body)
        guard let raw = json?["message-storage-policy"]?.intValue, let policy = APNsMessageStoragePolicy(rawValue: raw) else {
            throw APNsChannelError(
                .unexpectedAnswer, operation: .read, status: answer.response.status, channelID: channelID, requestID: answer.requestID,
                attempts: answer.attempts,
                message: "APNs answered 200 without a message-storage-policy of 0 or 1 in its JSON body (\(Self.excerpt(answer.response.body)))")
        }
        return APNsChannel(id: channelID, policy: policy, requestID: answer.requestID)
    }

    /// Deletes a channel: devices stop getting its broadcasts; its id is never valid again.
    ///
    /// - Parameter channelID: the channel id.
    /// - Throws: `APNsChannelError` (`channel_not_registered` when it does not exist; not when a
    ///   retry after a lost answer finds it gone: the first request deleted it).
    public func deleteChannel(_ channelID: String) async throws {
        _ = try await perform(.delete, channelID: channelID, body: Data(), resendable: true)
    }

    /// Lists the app's channels in this environment.
    ///
    /// - Returns: the channel ids, as APNs listed them.
    /// - Throws: `APNsChannelError`.
    public func listChannels() async throws -> [String] {
        let answer = try await perform(.list, channelID: nil, body: Data(), resendable: true)
        guard !answer.response.bodyTruncated else {
            throw APNsChannelError(
                .unexpectedAnswer, operation: .list, status: answer.response.status, requestID: answer.requestID, attempts: answer.attempts,
                message:
                    "the list of channels was longer than the transport keeps (TransportConfiguration.maximumResponseBodyBytes): raise it to \(Self.maximumListBytes) bytes or more"
            )
        }
        guard let list = (try? RichPushJSONValue.parse(answer.response.body))?["channels"]?.arrayValue else {
            throw APNsChannelError(
                .unexpectedAnswer, operation: .list, status: answer.response.status, requestID: answer.requestID, attempts: answer.attempts,
                message: "APNs answered 200 without a \"channels\" array in its JSON body (\(Self.excerpt(answer.response.body)))")
        }
        return list.compactMap(\.stringValue)
    }

    /// Sends one broadcast push notification on a channel, after `LiveActivityLinter` checked it.
    ///
    /// - Parameters:
    ///   - notification: the payload and headers.
    ///   - policy: the channel's storage policy when known: a non-zero `apns-expiration` to a
    ///     policy-0 channel is then refused here (APNs would answer `BadExpirationDate`).
    /// - Returns: APNs' acceptance (200, `apns-request-id`, `apns-unique-id`).
    /// - Throws: `APNsChannelError` `payload_rejected` (nothing sent; `findings` name the fields),
    ///   or what APNs answered (`bad_expiration_date`, `channel_not_registered`, `payload_too_large`, …).
    @discardableResult
    public func broadcast(_ notification: APNsBroadcastNotification, policy: APNsMessageStoragePolicy? = nil) async throws -> APNsBroadcastResult {
        let linter = LiveActivityLinter(
            destination: .broadcast(policy: policy, expiration: notification.expiration, priority: notification.priority.rawValue))
        let findings = linter.lint(notification.payload)
        let errors = findings.filter { $0.severity == .error }
        if !errors.isEmpty {
            var error = APNsChannelError(
                .payloadRejected, operation: .broadcast, channelID: notification.channelID,
                message: "the broadcast was not sent: " + errors.map(\.description).joined(separator: "; "))
            error.findings = errors
            throw error
        }
        let aps = (try? RichPushJSONValue.parse(notification.payload))?["aps"]
        let harmlessTwice = aps?["alert"] == nil
        let answer = try await perform(
            .broadcast, channelID: notification.channelID, body: notification.payload, resendable: harmlessTwice,
            extraHeaders: notification.headers(requestID: "").filter { $0.name != "apns-channel-id" && $0.name != "apns-request-id" },
            requestID: notification.requestID)
        return APNsBroadcastResult(
            channelID: notification.channelID, status: answer.response.status, requestID: answer.requestID,
            uniqueID: answer.response.headers["apns-unique-id"], attempts: answer.attempts)
    }

    // MARK: Requests

    private struct Answer {
        var response: TransportResponse
        var requestID: String
        var attempts: Int
    }

    /// One operation with its retries: the answer of success, or the error.
    private func perform(
        _ operation: APNsChannelOperation, channelID: String?, body: Data, resendable: Bool,
        extraHeaders: [(name: String, value: String)] = [], requestID: UUID? = nil
    ) async throws -> Answer {
        let requestID = (requestID ?? UUID()).uuidString.lowercased()
        let base = operation == .broadcast ? environment.broadcastURL : environment.managementURL
        let url = base + operation.path(bundleID: bundleID)
        var credential: APNsTokenManager.Token?
        var renewed = false
        var attempts = 0
        var lostAnswer = false
        func failure(_ code: APNsChannelError.Code, status: Int? = nil, reason: String? = nil, _ message: String) -> APNsChannelError {
            APNsChannelError(
                code, operation: operation, status: status, reason: reason, channelID: channelID, requestID: requestID, attempts: attempts, message: message)
        }
        while true {
            if let manager = authentication.tokenManager, credential == nil {
                do {
                    credential = try await manager.token()
                } catch {
                    throw failure(.providerConfiguration, "cannot sign the provider token: \(error)")
                }
            }
            var headers: [(name: String, value: String)] = []
            if let credential { headers.append(("authorization", "bearer " + credential.jwt)) }
            if let channelID { headers.append(("apns-channel-id", channelID)) }
            headers.append(("apns-request-id", requestID))
            headers += extraHeaders
            if operation == .create { headers.append(("content-type", "application/json")) }
            attempts += 1
            let response: TransportResponse
            do {
                response = try await transport.send(TransportRequest(method: operation.method, url: url, headers: headers, body: body))
            } catch let error as RichPushError {
                let reached = error.code == .answerUnknown
                let canRetry = attempts < retry.maxAttempts && (!reached || resendable)
                if reached { lostAnswer = true }
                if canRetry, error.code == .answerUnknown || error.code == .notProcessed || error.code == .connectionFailed {
                    try await pause(beforeRetry: attempts, retryAfter: nil)
                    continue
                }
                if reached {
                    throw failure(
                        .answerUnknown,
                        "the request was written and no answer came (\(error.message)): APNs may have done it"
                            + (operation == .create ? "; list the channels before creating another" : ""))
                }
                throw failure(.notSent, "the request did not reach APNs (\(error.code): \(error.message)): nothing happened; try again")
            } catch {
                throw failure(.notSent, "the request did not reach APNs (\(error)): nothing happened; try again")
            }
            let echoed = response.headers["apns-request-id"] ?? requestID
            if response.status == operation.successStatus {
                return Answer(response: response, requestID: echoed, attempts: attempts)
            }
            let reasonText = (try? RichPushJSONValue.parse(response.body))?["reason"]?.stringValue
            let reason = reasonText.map { APNsReason(rawValue: $0) }
            if operation == .delete, lostAnswer, reason == .channelNotRegistered {
                // The first request deleted it; its answer was lost.
                return Answer(response: response, requestID: echoed, attempts: attempts)
            }
            if response.status == 403, reason == .expiredProviderToken, let manager = authentication.tokenManager, let stale = credential, !renewed {
                renewed = true
                do {
                    credential = try await manager.renew(afterExpired: stale.jwt)
                } catch {
                    throw failure(.providerConfiguration, status: 403, reason: reasonText, "cannot sign the provider token: \(error)")
                }
                if credential != nil { continue }
            }
            let transient = response.status == 429 || response.status == 503 || (response.status == 500 && resendable)
            if transient, attempts < retry.maxAttempts {
                try await pause(beforeRetry: attempts, retryAfter: RetryAfter.seconds(response.headers["retry-after"]))
                continue
            }
            let (code, message) = APNsChannelError.classify(
                status: response.status, reason: reason, operation: operation, bundleID: bundleID, environment: environment)
            var error = failure(code, status: response.status, reason: reasonText, message)
            error.requestID = echoed
            throw error
        }
    }

    private func pause(beforeRetry retryNumber: Int, retryAfter: Double?) async throws {
        let seconds = retry.delay(beforeRetry: retryNumber, retryAfter: retryAfter)
        if seconds > 0 { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }
    }

    private static func excerpt(_ body: Data) -> String {
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return text.isEmpty ? "an empty body" : text
    }
}
