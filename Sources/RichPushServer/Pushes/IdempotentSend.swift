import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Runs a `POST /v1/pushes` that carries an `Idempotency-Key` at most once per key and body.
///
/// - The key is claimed in the store before anything is sent (`IdempotencyStore`), committed in
///   its own transaction, so of concurrent requests with one key — on one instance or several on
///   one PostgreSQL — one sends; the others get `409 in_progress` (with `Retry-After`) while it
///   runs, then its stored answer.
/// - The answer (status and body) is stored and replayed for the same key and body (SHA-256 of
///   the canonical JSON) for `window` after the first request, with `Idempotent-Replayed: true`;
///   the same key with another body is `409 idempotency_key_reused`.
/// - An answer that says nothing was sent (`503`: a provider not configured, the store down
///   before sending) is not stored: the key is given up, and a retry runs afresh.
/// - A crash mid-send leaves the key `in_progress` until its `lease` runs out (default 10
///   minutes, `serve --idempotency-lease-minutes`); a retry after that sends again. What can be
///   sent twice: the tokens the crashed request had already handed to APNs/FCM — at most all
///   the request's tokens — and only by a retry after the lease.
/// - Keys past their window are purged (at most once a minute, by whichever request comes).
struct IdempotentSend: Sendable {
    /// The route keys are scoped to: `POST /v1/pushes` or `POST /v1/campaigns`.
    let scope: String

    /// What one key stands for, in messages: "campaign" or "push".
    private var subject: String { scope.hasSuffix("/campaigns") ? "campaign" : "push" }
    /// Seconds a client is told to wait while the first request runs.
    static let retryAfterSeconds = 1

    /// The server's store; its keys are `idempotencyStore()` (a store without: `501`).
    let store: any ReceiptStore
    /// How long an answer is replayed (ms).
    let windowMs: Int
    /// How long a claim holds without an answer (ms).
    let leaseMs: Int
    private let lastPurgeMs = Locked(0)
    /// The store's lanes: claims and answers are request writes.
    private let lanes: StoreLanes

    /// - Parameters:
    ///   - context: the server's store and its `idempotencyWindow` (s; 24 h by default in
    ///     `serve`) and `idempotencyLease` (s).
    ///   - scope: the route keys are scoped to.
    init(context: ServerContext, scope: String) {
        self.store = context.store
        self.lanes = context.lanes
        self.scope = scope
        self.windowMs = max(1, Int(context.configuration.idempotencyWindow * 1000))
        self.leaseMs = max(1, Int(context.configuration.idempotencyLease * 1000))
    }

    /// Answers the request: `send()`'s answer without a key; with one, the stored answer, a 409,
    /// or `send()`'s answer (stored).
    ///
    /// - Parameters:
    ///   - key: the request's key, `nil` when it has none.
    ///   - body: the request body.
    ///   - send: sends the push (or creates the campaign) and answers.
    /// - Returns: the answer.
    /// - Throws: `HTTPResponseError` 409 `idempotency_key_reused` / `in_progress`, 503
    ///   `store_error` when the key cannot be claimed (nothing is sent), 501
    ///   `idempotency_unsupported` when the store keeps no keys.
    func respond(key: IdempotencyKey?, body: Data, send: @Sendable () async -> ServerResponse) async throws -> ServerResponse {
        guard let key else { return await send() }
        let store: any IdempotencyStore
        do {
            store = try self.store.idempotencyStore()
        } catch {
            throw HTTPResponseError(
                status: 501, code: "idempotency_unsupported", field: IdempotencyKey.header,
                message: "this server's store keeps no idempotency keys (SQLite and PostgreSQL do); nothing was sent")
        }
        let hash = try IdempotencyKey.fingerprint(body)
        let scope = self.scope
        let (windowMs, leaseMs) = (self.windowMs, self.leaseMs)
        let nowMs = Self.nowMs()
        let claim: IdempotencyClaim
        do {
            claim = try await onStore {
                try store.claimIdempotencyKey(key.value, scope: scope, bodySHA256: hash, nowMs: nowMs, leaseMs: leaseMs, windowMs: windowMs)
            }
        } catch {
            throw HTTPResponseError(
                status: 503, code: "store_error",
                message: "cannot check the Idempotency-Key in the store (nothing was sent): \((error as? RichPushError)?.message ?? "\(error)"); retry later",
                headers: [("Retry-After", "\(Self.retryAfterSeconds)")])
        }
        purgeIfDue(nowMs, store)
        switch claim {
        case .reused:
            throw HTTPResponseError(
                status: 409, code: "idempotency_key_reused", field: IdempotencyKey.header,
                message:
                    "this Idempotency-Key was used with another request body in the last \(Self.describe(windowMs)); use a new key for a new \(subject) (a UUID per \(subject))"
            )
        case .inProgress:
            throw HTTPResponseError(
                status: 409, code: "in_progress", field: IdempotencyKey.header,
                message: "a request with this Idempotency-Key is still sending; retry after it finishes to get its answer",
                headers: [("Retry-After", "\(Self.retryAfterSeconds)")])
        case .completed(let status, let response):
            return ServerResponse(
                status: status, contentType: "application/json", body: Data(response.utf8), headers: [("Idempotent-Replayed", "true")])
        case .claimed:
            let answer = await send()
            let text = String(decoding: answer.body, as: UTF8.self)
            // 503: nothing was sent (a provider not configured, the store down before sending);
            // 422 from the media check: nothing was sent either (a retry after the media is fixed sends).
            let keep = answer.status != 503 && !(answer.status == 422 && answer.contentType == "application/json" && Self.isMediaRefusal(answer.body))
            try? await onStore {
                if keep {
                    try store.completeIdempotencyKey(key.value, scope: scope, bodySHA256: hash, status: answer.status, response: text)
                } else {
                    try store.releaseIdempotencyKey(key.value, scope: scope, bodySHA256: hash)
                }
            }
            return answer
        }
    }

    /// Deletes expired keys, at most once a minute per instance, off the request's path.
    private func purgeIfDue(_ nowMs: Int, _ store: any IdempotencyStore) {
        let due = lastPurgeMs.withLock { last in
            guard nowMs - last >= 60_000 else { return false }
            last = nowMs
            return true
        }
        guard due else { return }
        let lanes = self.lanes
        Task { _ = try? await lanes.run(.background) { try store.purgeIdempotencyKeys(nowMs: nowMs) } }
    }

    private func onStore<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await lanes.run(.write, work)
    }

    /// Whether an answer is the media check's `422 media_refused` (nothing was sent).
    static func isMediaRefusal(_ body: Data) -> Bool {
        (try? RichPushJSONValue.parse(body))?["error"]?["code"]?.stringValue == "media_refused"
    }

    private static func nowMs() -> Int { Int(Date().timeIntervalSince1970 * 1000) }

    private static func describe(_ ms: Int) -> String {
        ms % 3_600_000 == 0 ? "\(ms / 3_600_000) h" : ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
    }
}
