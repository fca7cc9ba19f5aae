import CSQLite
import Foundation
import RichPushCore

/// The webhook outbox in SQLite (`WebhookOutboxStore`, schema version 8): `webhook_outbox` (one
/// row per event and endpoint, `seq` its order) and `webhook_endpoints` (per endpoint the
/// delivered and given-up counts and the last error). One process writes a SQLite store, so the
/// write lock orders the rows; the lease still guards a second process opening the same file.
extension SQLiteStore: WebhookOutboxStore {
    /// Version 8: the outbox (`IF NOT EXISTS`: idempotent inside `migrate`'s transaction).
    static func migrateToVersion8(_ db: SQLiteConnection) throws {
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS webhook_outbox (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                endpoint TEXT NOT NULL,
                event_id TEXT NOT NULL,
                event_type TEXT NOT NULL,
                subject TEXT NOT NULL,
                body TEXT NOT NULL,
                created_at_ms INTEGER NOT NULL,
                state TEXT NOT NULL DEFAULT 'pending',
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_ms INTEGER NOT NULL,
                lease_owner TEXT,
                lease_until_ms INTEGER,
                last_status INTEGER,
                last_error TEXT,
                done_at_ms INTEGER,
                UNIQUE (endpoint, event_id)
            );
            CREATE INDEX IF NOT EXISTS webhook_outbox_due ON webhook_outbox (endpoint, next_attempt_ms, seq) WHERE state = 'pending';
            CREATE INDEX IF NOT EXISTS webhook_outbox_subject ON webhook_outbox (endpoint, subject, seq) WHERE state = 'pending';
            CREATE INDEX IF NOT EXISTS webhook_outbox_failed ON webhook_outbox (done_at_ms) WHERE state = 'failed';
            CREATE TABLE IF NOT EXISTS webhook_endpoints (
                endpoint TEXT PRIMARY KEY,
                delivered INTEGER NOT NULL DEFAULT 0,
                failed INTEGER NOT NULL DEFAULT 0,
                last_delivered_at_ms INTEGER,
                last_error TEXT,
                last_error_at_ms INTEGER
            );
            """)
    }

    /// Writes deliveries on the writer inside the caller's transaction (the caller holds
    /// `writeLock` and has begun it): how `recordSend` writes the events of a send, and how
    /// another write (a campaign's end, a refused media URL) writes its own.
    ///
    /// - Parameter deliveries: the rows, in order.
    /// - Throws: `RichPushError` `store`.
    func insertWebhookDeliveries(_ deliveries: [WebhookDelivery]) throws {
        guard !deliveries.isEmpty else { return }
        pendingChanges.insert(.webhooks)
        let insert = try writer.prepared(
            """
            INSERT INTO webhook_outbox (endpoint, event_id, event_type, subject, body, created_at_ms, next_attempt_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (endpoint, event_id) DO NOTHING
            """)
        for d in deliveries {
            insert.reset()
            try insert.bind([
                .text(d.endpoint), .text(d.event.id), .text(d.event.type.rawValue), .text(d.event.subject),
                .text(String(decoding: d.event.body, as: UTF8.self)), .integer(d.event.createdAtMs), .integer(d.event.createdAtMs),
            ])
            try insert.run()
        }
    }

    /// See `WebhookOutboxStore.enqueueWebhooks(_:)`; durable on return.
    public func enqueueWebhooks(_ deliveries: [WebhookDelivery]) throws {
        guard !deliveries.isEmpty else { return }
        try webhookWrite { try insertWebhookDeliveries(deliveries) }
        try syncCommitted()
    }

    /// See `WebhookOutboxStore.claimWebhooks(endpoint:owner:nowMs:leaseMs:limit:)`. A read on a
    /// reader connection first, so an idle poll never takes the write lock from receipts.
    public func claimWebhooks(endpoint: String, owner: String, nowMs: Int, leaseMs: Int, limit: Int) throws -> [WebhookClaim] {
        let anyDue = try readers.withConnection { db in
            let probe = try db.prepared(
                "SELECT 1 FROM webhook_outbox WHERE endpoint = ? AND state = 'pending' AND next_attempt_ms <= ? AND (lease_until_ms IS NULL OR lease_until_ms <= ?) LIMIT 1"
            )
            try probe.bind([.text(endpoint), .integer(nowMs), .integer(nowMs)])
            return try !probe.rows { _ in true }.isEmpty
        }
        guard anyDue else { return [] }
        return try webhookWrite {
            let due = try writer.prepared(
                """
                SELECT seq, event_id, event_type, subject, body, attempts, created_at_ms, failures FROM webhook_outbox o
                WHERE endpoint = ? AND state = 'pending' AND next_attempt_ms <= ? AND (lease_until_ms IS NULL OR lease_until_ms <= ?)
                  AND NOT EXISTS (SELECT 1 FROM webhook_outbox p WHERE p.endpoint = o.endpoint AND p.subject = o.subject AND p.state = 'pending' AND p.seq < o.seq)
                ORDER BY next_attempt_ms, seq LIMIT ?
                """)
            try due.bind([.text(endpoint), .integer(nowMs), .integer(nowMs), .integer(limit)])
            let claims = try due.rows { s in
                WebhookClaim(
                    seq: s.int(0) ?? 0, eventID: s.text(1) ?? "", type: WebhookEventType(rawValue: s.text(2) ?? ""), subject: s.text(3) ?? "",
                    body: Data((s.text(4) ?? "").utf8), attempts: s.int(5) ?? 0, createdAtMs: s.int(6) ?? 0, failures: s.int(7) ?? 0)
            }
            let lease = try writer.prepared("UPDATE webhook_outbox SET lease_owner = ?, lease_until_ms = ? WHERE seq = ?")
            for claim in claims {
                lease.reset()
                try lease.bind([.text(owner), .integer(nowMs + leaseMs), .integer(claim.seq)])
                try lease.run()
            }
            return claims
        }
    }

    /// See `WebhookOutboxStore.finishWebhooks(_:endpoint:owner:)`.
    public func finishWebhooks(_ attempts: [WebhookAttempt], endpoint: String, owner: String) throws {
        guard !attempts.isEmpty else { return }
        try webhookWrite {
            let delete = try writer.prepared("DELETE FROM webhook_outbox WHERE seq = ? AND lease_owner = ? AND state = 'pending'")
            let retry = try writer.prepared(
                """
                UPDATE webhook_outbox SET next_attempt_ms = ?, lease_owner = NULL, lease_until_ms = NULL, last_status = ?, last_error = ?,
                  attempts = attempts + ?, failures = failures + 1
                WHERE seq = ? AND lease_owner = ? AND state = 'pending'
                """)
            let giveUp = try writer.prepared(
                """
                UPDATE webhook_outbox SET state = 'failed', done_at_ms = ?, lease_owner = NULL, lease_until_ms = NULL, last_status = ?, last_error = ?,
                  attempts = attempts + ?, failures = failures + 1
                WHERE seq = ? AND lease_owner = ? AND state = 'pending'
                """)
            var delivered = 0, failed = 0
            var lastDelivered: Int?
            var lastError: (String, Int)?
            for a in attempts {
                let statement: SQLiteStatement
                switch a.outcome {
                case .delivered:
                    statement = delete
                    delete.reset()
                    try delete.bind([.integer(a.seq), .text(owner)])
                case .retry(let next):
                    statement = retry
                    retry.reset()
                    try retry.bind([.integer(next), .optional(a.status), .optional(a.error), .integer(a.sent ? 1 : 0), .integer(a.seq), .text(owner)])
                case .gaveUp:
                    statement = giveUp
                    giveUp.reset()
                    try giveUp.bind([
                        .integer(a.atMs), .optional(a.status), .optional(a.error), .integer(a.sent ? 1 : 0), .integer(a.seq), .text(owner),
                    ])
                }
                try statement.run()
                guard writer.changes == 1 else { continue }
                switch a.outcome {
                case .delivered:
                    delivered += 1
                    lastDelivered = max(lastDelivered ?? 0, a.atMs)
                case .gaveUp: failed += 1
                case .retry: break
                }
                if let error = a.error, a.atMs >= (lastError?.1 ?? 0) { lastError = (error, a.atMs) }
            }
            let totals = try writer.prepared(
                """
                INSERT INTO webhook_endpoints (endpoint, delivered, failed, last_delivered_at_ms, last_error, last_error_at_ms) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (endpoint) DO UPDATE SET delivered = delivered + excluded.delivered, failed = failed + excluded.failed,
                  last_delivered_at_ms = COALESCE(MAX(last_delivered_at_ms, excluded.last_delivered_at_ms), last_delivered_at_ms, excluded.last_delivered_at_ms),
                  last_error = COALESCE(excluded.last_error, last_error), last_error_at_ms = COALESCE(excluded.last_error_at_ms, last_error_at_ms)
                """)
            try totals.bind([
                .text(endpoint), .integer(delivered), .integer(failed), .optional(lastDelivered), .optional(lastError?.0), .optional(lastError?.1),
            ])
            try totals.run()
        }
    }

    /// See `WebhookOutboxStore.webhookStatus()`.
    public func webhookStatus() throws -> [String: WebhookEndpointStatus] {
        try reading { db in
            var out: [String: WebhookEndpointStatus] = [:]
            let totals = try db.prepared(
                "SELECT endpoint, delivered, failed, last_delivered_at_ms, last_error, last_error_at_ms FROM webhook_endpoints")
            for (key, delivered, failed, lastDelivered, lastError, lastErrorAt) in try totals.rows({
                ($0.text(0) ?? "", $0.int(1) ?? 0, $0.int(2) ?? 0, $0.int(3), $0.text(4), $0.int(5))
            }) {
                var s = WebhookEndpointStatus()
                s.delivered = delivered
                s.failed = failed
                s.lastDeliveredAtMs = lastDelivered
                s.lastError = lastError
                s.lastErrorAtMs = lastErrorAt
                out[key] = s
            }
            let pending = try db.prepared(
                """
                SELECT endpoint, COUNT(*), SUM(CASE WHEN failures > 0 THEN 1 ELSE 0 END), MIN(created_at_ms)
                FROM webhook_outbox WHERE state = 'pending' GROUP BY endpoint
                """)
            for (key, count, retrying, oldest) in try pending.rows({ ($0.text(0) ?? "", $0.int(1) ?? 0, $0.int(2) ?? 0, $0.int(3)) }) {
                out[key, default: WebhookEndpointStatus()].pending = count
                out[key, default: WebhookEndpointStatus()].retrying = retrying
                out[key, default: WebhookEndpointStatus()].oldestPendingMs = oldest
            }
            return out
        }
    }

    /// See `WebhookOutboxStore.pruneWebhooks(failedBeforeMs:)`.
    @discardableResult
    public func pruneWebhooks(failedBeforeMs beforeMs: Int) throws -> Int {
        try webhookWrite {
            let delete = try writer.prepared("DELETE FROM webhook_outbox WHERE state = 'failed' AND done_at_ms < ?")
            try delete.bind([.integer(beforeMs)])
            try delete.run()
            return writer.changes
        }
    }

    /// One write transaction on the writer, under the write lock (not synced: a claim or a
    /// finish lost to an OS crash only makes a delivery happen again, which at-least-once allows).
    private func webhookWrite<T>(_ work: () throws -> T) throws -> T {
        try writeTransaction(synced: false) { _ in try work() }
    }
}
