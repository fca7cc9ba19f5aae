import Foundation
import RichPushCore
import RichPushProvider

/// Sends `POST /v1/pushes` through APNs and records the send in the store.
///
/// One `APNsClient` (one HTTP/2 connection, one cached provider token) serves every request.
/// The APNs work runs in a task off libmicrohttpd's threads (the connection is suspended
/// meanwhile), and the store write runs on a serial queue of its own, so no server thread and no
/// thread of Swift's cooperative pool waits on the network or on SQLite's fsync.
public final class PushSender: Sendable {
    /// The APNs settings (without the key's contents).
    public let settings: APNsSettings
    private let client: APNsClient
    private let store: any ReceiptStore
    private let recordQueue = DispatchQueue(label: "richpush.pushes.record")
    private let pending = PendingCounter()

    /// Reads the key and opens the APNs client (the connection is made on the first send).
    ///
    /// - Parameters:
    ///   - settings: key, key id, team id, topic, environment, CA file.
    ///   - store: where sends are recorded (`recordSend`).
    ///   - retry: backoff for 429 / 5xx.
    /// - Throws: `RichPushError` `invalid_key` (the `.p8` cannot be read or is not a P-256 key),
    ///   `io` (the CA file cannot be read), `transport` (libcurl cannot start).
    public init(settings: APNsSettings, store: any ReceiptStore, retry: APNsRetryPolicy = APNsRetryPolicy()) throws {
        self.settings = settings
        self.store = store
        let signer: ES256Signer
        do {
            signer = try ES256Signer(contentsOf: URL(fileURLWithPath: settings.keyFile))
        } catch let error as RichPushError {
            throw RichPushError(code: error.code, message: "the APNs key for POST /v1/pushes (--apns-key or RICHPUSH_APNS_KEY): \(error.message)")
        }
        let manager = APNsTokenManager(signer: signer, keyID: settings.keyID, teamID: settings.teamID)
        var transport = TransportConfiguration()
        if let caFile = settings.caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw RichPushError(code: .io, message: "cannot read the CA file \(caFile) given to --apns-ca-file")
            }
            transport.caFile = caFile
        }
        client = try APNsClient(environment: settings.environment, authentication: .token(manager), transport: transport, retry: retry)
    }

    /// Sends requests not yet answered.
    public var inFlight: Int { pending.value }

    /// Closes the APNs connection; sends in flight fail (and are answered) soon after.
    public func shutdown() { client.shutdown() }

    /// Sends a checked request and calls `respond` once with the HTTP response, from another
    /// thread: 200 with the results, or 502 when APNs refused the configuration (key, team, topic).
    ///
    /// - Parameters:
    ///   - request: the checked request.
    ///   - respond: called exactly once.
    public func send(_ request: PushSendRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        pending.add(1)
        let client = self.client
        let store = self.store
        let queue = recordQueue
        let pending = self.pending
        Task.detached {
            let sentAtMs = Int(Date().timeIntervalSince1970 * 1000)
            let batch: APNsBatchResult
            do {
                batch = try await client.send(request.notification, to: request.tokens)
            } catch let error as RichPushError {
                respond(PushRequestError(code: error.code.rawValue, message: error.message).response)
                pending.add(-1)
                return
            } catch {
                respond(.error(500, code: "send_failed", message: String(describing: error)))
                pending.add(-1)
                return
            }
            let record = PushSendRecord(
                pushID: request.pushID, sentAtMs: sentAtMs, title: request.title,
                tokens: batch.results.map(Self.tokenResult)
            )
            queue.async {
                var storeError: String?
                do { try store.recordSend(record) } catch {
                    storeError = (error as? RichPushError)?.message ?? String(describing: error)
                }
                respond(Self.response(request, batch, storeError: storeError))
                pending.add(-1)
            }
        }
    }

    static func tokenResult(_ r: APNsResult) -> PushSendRecord.TokenResult {
        var state: PushSendRecord.TokenState?
        if r.outcome == .tokenInactive { state = .inactive }
        if r.outcome == .tokenBad { state = .bad }
        return PushSendRecord.TokenResult(
            deviceToken: r.deviceToken, status: r.status, reason: r.reason?.rawValue, apnsID: r.apnsID,
            outcome: r.outcome.rawValue, state: state,
            inactiveSinceMs: r.timestampMs
        )
    }

    /// `{push_id, push_id_generated, sent, accepted, recorded, results: [{token, status, reason, apns_id, outcome, message?}]}`,
    /// plus `error` (and status 502) when a configuration error stopped the batch.
    static func response(_ request: PushSendRequest, _ batch: APNsBatchResult, storeError: String?) -> HTTPResponse {
        var results: [JSONValue] = []
        results.reserveCapacity(batch.results.count)
        for r in batch.results {
            var o: [String: JSONValue] = [
                "token": .string(r.deviceToken), "status": r.status.map(JSONValue.int) ?? .null,
                "reason": r.reason.map { .string($0.rawValue) } ?? .null, "apns_id": r.apnsID.map(JSONValue.string) ?? .null,
                "outcome": .string(r.outcome.rawValue),
            ]
            if let message = r.message { o["message"] = .string(message) }
            results.append(.object(o))
        }
        var root: [String: JSONValue] = [
            "push_id": .string(request.pushID), "push_id_generated": .bool(request.pushIDGenerated),
            "sent": .int(batch.sent), "accepted": .int(batch.accepted), "results": .array(results),
            "recorded": .bool(storeError == nil),
        ]
        if let storeError { root["store_error"] = .string("sent, but not recorded: \(storeError)") }
        var status = 200
        if let stop = batch.stoppedBy {
            status = 502
            root["error"] = .object([
                "code": .string("apns_configuration"),
                "message": .string("APNs refused the server's APNs settings, so the batch stopped: \(stop.message) (richpush serve --apns-key/--apns-key-id/--apns-team-id/--apns-topic)"),
            ])
        }
        let body = JSONValue.object(root).jsonData(sortedKeys: true)
        return HTTPResponse(status: status, contentType: "application/json", body: body + Data("\n".utf8))
    }
}
