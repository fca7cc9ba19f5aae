import Foundation
import RichPushCore

/// The webhook outbox in PostgreSQL (`WebhookOutboxStore`, schema version 8), as SQLite's, for
/// several instances on one database: a claim is one `UPDATE … FROM (SELECT … FOR UPDATE SKIP
/// LOCKED)` that sets a lease, so two instances never attempt the same delivery at once; a
/// delivery whose predecessor of the same subject is still pending (leased by another instance
/// or waiting for its retry) is not due. Rows of one subject get their `seq` in commit order:
/// every insert first takes a transaction-level advisory lock per subject (in hash order, so two
/// inserts never wait on each other in a cycle), so a later transaction of that subject draws a
/// larger `seq` only after the earlier one committed.
extension PostgresStore: WebhookOutboxStore {
    /// The first key of the per-subject advisory locks ("rpwh").
    static let webhookLockKey: Int32 = 0x7270_7768

    /// Version 8: the outbox (`IF NOT EXISTS`: a hand-made schema may have it).
    static let migrateToVersion8 = """
        CREATE TABLE IF NOT EXISTS webhook_outbox (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            endpoint text NOT NULL,
            event_id text NOT NULL,
            event_type text NOT NULL,
            subject text NOT NULL,
            body text NOT NULL,
            created_at_ms bigint NOT NULL,
            state text NOT NULL DEFAULT 'pending',
            attempts integer NOT NULL DEFAULT 0,
            next_attempt_ms bigint NOT NULL,
            lease_owner text,
            lease_until_ms bigint,
            last_status integer,
            last_error text,
            done_at_ms bigint,
            UNIQUE (endpoint, event_id)
        );
        CREATE INDEX IF NOT EXISTS webhook_outbox_due ON webhook_outbox (endpoint, next_attempt_ms, seq) WHERE state = 'pending';
        CREATE INDEX IF NOT EXISTS webhook_outbox_subject ON webhook_outbox (endpoint, subject, seq) WHERE state = 'pending';
        CREATE INDEX IF NOT EXISTS webhook_outbox_failed ON webhook_outbox (done_at_ms) WHERE state = 'failed';
        CREATE TABLE IF NOT EXISTS webhook_endpoints (
            endpoint text PRIMARY KEY,
            delivered bigint NOT NULL DEFAULT 0,
            failed bigint NOT NULL DEFAULT 0,
            last_delivered_at_ms bigint,
            last_error text,
            last_error_at_ms bigint
        );
        UPDATE richpush_meta SET value = '8' WHERE key = 'schema_version';
        """

    /// Writes deliveries inside the caller's transaction on `connection` (see the type's
    /// discussion for the per-subject locks): how `recordSend` writes a send's events, and how
    /// another write (a campaign's end, a refused media URL) writes its own.
    ///
    /// - Parameters:
    ///   - deliveries: the rows, in order.
    ///   - connection: a connection inside `BEGIN`.
    /// - Throws: `PostgresError`.
    static func insertWebhookDeliveries(_ deliveries: [WebhookDelivery], on connection: PostgresConnection) throws {
        guard !deliveries.isEmpty else { return }
        try connection.execute(
            """
            SELECT pg_advisory_xact_lock($1::integer, h) FROM (SELECT DISTINCT hashtext(s) AS h FROM unnest($2::text[]) AS u(s) ORDER BY 1) AS l
            """, [String(webhookLockKey), PostgresArrayLiteral.text(Set(deliveries.map { $0.event.subject }).sorted().map { Optional($0) })])
        try connection.execute(
            """
            INSERT INTO webhook_outbox (endpoint, event_id, event_type, subject, body, created_at_ms, next_attempt_ms)
            SELECT endpoint, event_id, event_type, subject, body, created_at_ms, created_at_ms
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])
                WITH ORDINALITY AS u(endpoint, event_id, event_type, subject, body, created_at_ms, n)
            ORDER BY n
            ON CONFLICT (endpoint, event_id) DO NOTHING
            """,
            [
                PostgresArrayLiteral.text(deliveries.map(\.endpoint)), PostgresArrayLiteral.text(deliveries.map(\.event.id)),
                PostgresArrayLiteral.text(deliveries.map(\.event.type.rawValue)), PostgresArrayLiteral.text(deliveries.map(\.event.subject)),
                PostgresArrayLiteral.text(deliveries.map { String(decoding: $0.event.body, as: UTF8.self) }),
                PostgresArrayLiteral.integers(deliveries.map(\.event.createdAtMs)),
            ])
    }

    /// Runs `work` between `BEGIN` and `COMMIT` on `connection` (rolled back when it throws).
    static func inTransaction<T>(_ connection: PostgresConnection, _ work: () throws -> T) throws -> T {
        try connection.execute("BEGIN")
        do {
            let result = try work()
            try connection.execute("COMMIT")
            return result
        } catch {
            if connection.isConnected { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// See `WebhookOutboxStore.enqueueWebhooks(_:)`.
    public func enqueueWebhooks(_ deliveries: [WebhookDelivery]) throws {
        guard !deliveries.isEmpty else { return }
        try pooled { c in try Self.inTransaction(c) { try Self.insertWebhookDeliveries(deliveries, on: c) } }
    }

    /// See `WebhookOutboxStore.claimWebhooks(endpoint:owner:nowMs:leaseMs:limit:)`: one statement.
    public func claimWebhooks(endpoint: String, owner: String, nowMs: Int, leaseMs: Int, limit: Int) throws -> [WebhookClaim] {
        try pooled { c in
            let result = try c.execute(
                """
                UPDATE webhook_outbox AS o SET lease_owner = $4, lease_until_ms = $5, attempts = o.attempts + 1
                FROM (
                    SELECT seq FROM webhook_outbox d
                    WHERE d.endpoint = $1 AND d.state = 'pending' AND d.next_attempt_ms <= $2 AND (d.lease_until_ms IS NULL OR d.lease_until_ms <= $2)
                      AND NOT EXISTS (
                        SELECT 1 FROM webhook_outbox p WHERE p.endpoint = d.endpoint AND p.subject = d.subject AND p.state = 'pending' AND p.seq < d.seq)
                    ORDER BY d.next_attempt_ms, d.seq LIMIT $3
                    FOR UPDATE SKIP LOCKED
                ) AS due
                WHERE o.seq = due.seq AND o.state = 'pending' AND (o.lease_until_ms IS NULL OR o.lease_until_ms <= $2)
                RETURNING o.seq, o.event_id, o.event_type, o.subject, o.body, o.attempts, o.created_at_ms, o.next_attempt_ms
                """, [endpoint, String(nowMs), String(limit), owner, String(nowMs + leaseMs)], prepare: true)
            return result.rows { r in
                WebhookClaim(
                    seq: result.int(r, 0) ?? 0, eventID: result.text(r, 1) ?? "", type: WebhookEventType(rawValue: result.text(r, 2) ?? ""),
                    subject: result.text(r, 3) ?? "", body: Data((result.text(r, 4) ?? "").utf8), attempts: result.int(r, 5) ?? 1,
                    createdAtMs: result.int(r, 6) ?? 0)
            }
        }
    }

    /// See `WebhookOutboxStore.finishWebhooks(_:endpoint:owner:)`: one transaction.
    public func finishWebhooks(_ attempts: [WebhookAttempt], endpoint: String, owner: String) throws {
        guard !attempts.isEmpty else { return }
        try pooled { c in
            try Self.inTransaction(c) {
                var delivered = 0, failed = 0
                var lastDelivered: Int?
                var lastError: (String, Int)?
                for a in attempts {
                    let changed: Int
                    switch a.outcome {
                    case .delivered:
                        changed =
                            try c.execute(
                                "DELETE FROM webhook_outbox WHERE seq = $1 AND lease_owner = $2 AND state = 'pending' RETURNING 1", [String(a.seq), owner]
                            ).count
                    case .retry(let next):
                        changed =
                            try c.execute(
                                """
                                UPDATE webhook_outbox SET next_attempt_ms = $3, lease_owner = NULL, lease_until_ms = NULL, last_status = $4, last_error = $5
                                WHERE seq = $1 AND lease_owner = $2 AND state = 'pending' RETURNING 1
                                """, [String(a.seq), owner, String(next), a.status.map(String.init), a.error]
                            ).count
                    case .gaveUp:
                        changed =
                            try c.execute(
                                """
                                UPDATE webhook_outbox SET state = 'failed', done_at_ms = $3, lease_owner = NULL, lease_until_ms = NULL, last_status = $4,
                                  last_error = $5
                                WHERE seq = $1 AND lease_owner = $2 AND state = 'pending' RETURNING 1
                                """, [String(a.seq), owner, String(a.atMs), a.status.map(String.init), a.error]
                            ).count
                    }
                    guard changed == 1 else { continue }
                    switch a.outcome {
                    case .delivered:
                        delivered += 1
                        lastDelivered = max(lastDelivered ?? 0, a.atMs)
                    case .gaveUp: failed += 1
                    case .retry: break
                    }
                    if let error = a.error, a.atMs >= (lastError?.1 ?? 0) { lastError = (error, a.atMs) }
                }
                try c.execute(
                    """
                    INSERT INTO webhook_endpoints AS w (endpoint, delivered, failed, last_delivered_at_ms, last_error, last_error_at_ms)
                    VALUES ($1, $2, $3, $4, $5, $6)
                    ON CONFLICT (endpoint) DO UPDATE SET delivered = w.delivered + excluded.delivered, failed = w.failed + excluded.failed,
                      last_delivered_at_ms = GREATEST(w.last_delivered_at_ms, excluded.last_delivered_at_ms),
                      last_error = COALESCE(excluded.last_error, w.last_error), last_error_at_ms = COALESCE(excluded.last_error_at_ms, w.last_error_at_ms)
                    """,
                    [endpoint, String(delivered), String(failed), lastDelivered.map(String.init), lastError?.0, lastError.map { String($0.1) }])
            }
        }
    }

    /// See `WebhookOutboxStore.webhookStatus()`.
    public func webhookStatus() throws -> [String: WebhookEndpointStatus] {
        try pooled(readOnly: true) { c in
            var out: [String: WebhookEndpointStatus] = [:]
            let totals = try c.execute("SELECT endpoint, delivered, failed, last_delivered_at_ms, last_error, last_error_at_ms FROM webhook_endpoints")
            for r in 0..<totals.count {
                var s = WebhookEndpointStatus()
                s.delivered = totals.int(r, 1) ?? 0
                s.failed = totals.int(r, 2) ?? 0
                s.lastDeliveredAtMs = totals.int(r, 3)
                s.lastError = totals.text(r, 4)
                s.lastErrorAtMs = totals.int(r, 5)
                out[totals.text(r, 0) ?? ""] = s
            }
            let pending = try c.execute(
                """
                SELECT endpoint, COUNT(*), COUNT(*) FILTER (WHERE attempts > 1 OR (attempts = 1 AND lease_owner IS NULL)), MIN(created_at_ms)
                FROM webhook_outbox WHERE state = 'pending' GROUP BY endpoint
                """)
            for r in 0..<pending.count {
                let key = pending.text(r, 0) ?? ""
                out[key, default: WebhookEndpointStatus()].pending = pending.int(r, 1) ?? 0
                out[key, default: WebhookEndpointStatus()].retrying = pending.int(r, 2) ?? 0
                out[key, default: WebhookEndpointStatus()].oldestPendingMs = pending.int(r, 3)
            }
            return out
        }
    }

    /// See `WebhookOutboxStore.pruneWebhooks(failedBeforeMs:)`.
    @discardableResult
    public func pruneWebhooks(failedBeforeMs beforeMs: Int) throws -> Int {
        try pooled { c in
            try c.execute("DELETE FROM webhook_outbox WHERE state = 'failed' AND done_at_ms < $1 RETURNING 1", [String(beforeMs)]).count
        }
    }
}
