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
        // Every instance's idle delivery loops look at COMMIT (`PostgresListener`).
        try notify(PostgresListener.webhooks, on: connection)
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
                UPDATE webhook_outbox AS o SET lease_owner = $4, lease_until_ms = \(Self.now("$2")) + $5::bigint
                FROM (
                    SELECT seq FROM webhook_outbox d
                    WHERE d.endpoint = $1 AND d.state = 'pending' AND d.next_attempt_ms <= \(Self.now("$2"))
                      AND (d.lease_until_ms IS NULL OR d.lease_until_ms <= \(Self.now("$2")))
                      AND NOT EXISTS (
                        SELECT 1 FROM webhook_outbox p WHERE p.endpoint = d.endpoint AND p.subject = d.subject AND p.state = 'pending' AND p.seq < d.seq)
                    ORDER BY d.next_attempt_ms, d.seq LIMIT $3
                    FOR UPDATE SKIP LOCKED
                ) AS due
                WHERE o.seq = due.seq AND o.state = 'pending' AND (o.lease_until_ms IS NULL OR o.lease_until_ms <= \(Self.now("$2")))
                RETURNING o.seq, o.event_id, o.event_type, o.subject, o.body, o.attempts, o.created_at_ms, o.next_attempt_ms, o.failures
                """, [endpoint, clockValue(nowMs), String(limit), owner, String(leaseMs)], prepare: true)
            return result.rows { r in
                WebhookClaim(
                    seq: result.int(r, 0) ?? 0, eventID: result.text(r, 1) ?? "", type: WebhookEventType(rawValue: result.text(r, 2) ?? ""),
                    subject: result.text(r, 3) ?? "", body: Data((result.text(r, 4) ?? "").utf8), attempts: result.int(r, 5) ?? 0,
                    createdAtMs: result.int(r, 6) ?? 0, failures: result.int(r, 8) ?? 0)
            }
        }
    }

    /// See `WebhookOutboxStore.finishWebhooks(_:endpoint:owner:)`: one statement, so the row of
    /// the endpoint's figures, which every instance's finish updates, is locked only while the
    /// server runs it, never across a round trip to a client that may be descheduled (with a
    /// transaction of several statements, a loaded instance held it past the other's 1 s
    /// `lock_timeout`, see `PostgresDeadline`).
    public func finishWebhooks(_ attempts: [WebhookAttempt], endpoint: String, owner: String) throws {
        guard !attempts.isEmpty else { return }
        let kinds: [String?] = attempts.map {
            switch $0.outcome {
            case .delivered: "delivered"
            case .retry: "retry"
            case .gaveUp: "gave_up"
            }
        }
        let next: [Int?] = attempts.map {
            if case .retry(let at) = $0.outcome { return at }
            return nil
        }
        // A retry's wait is kept as a wait from the database's now (an instance whose clock is off
        // shifts no retry).
        let given = attempts.first.flatMap { clockValue($0.atMs) }
        _ = try pooled { c in
            try c.execute(
                """
                WITH a AS (
                    SELECT * FROM unnest($3::bigint[], $4::text[], $5::bigint[], $6::integer[], $7::text[], $8::bigint[], $9::integer[])
                        WITH ORDINALITY AS u(seq, kind, next_ms, status, error, at_ms, sent, n)
                ), delivered AS (
                    DELETE FROM webhook_outbox o USING a
                    WHERE a.kind = 'delivered' AND o.seq = a.seq AND o.lease_owner = $2 AND o.state = 'pending'
                    RETURNING a.n, a.at_ms, a.error, a.kind
                ), retried AS (
                    UPDATE webhook_outbox o SET next_attempt_ms = \(Self.now("$10")) + (a.next_ms - a.at_ms), lease_owner = NULL,
                      lease_until_ms = NULL, last_status = a.status, last_error = a.error, attempts = o.attempts + a.sent, failures = o.failures + 1
                    FROM a WHERE a.kind = 'retry' AND o.seq = a.seq AND o.lease_owner = $2 AND o.state = 'pending'
                    RETURNING a.n, a.at_ms, a.error, a.kind
                ), gave_up AS (
                    UPDATE webhook_outbox o SET state = 'failed', done_at_ms = a.at_ms, lease_owner = NULL, lease_until_ms = NULL, last_status = a.status,
                      last_error = a.error, attempts = o.attempts + a.sent, failures = o.failures + 1
                    FROM a WHERE a.kind = 'gave_up' AND o.seq = a.seq AND o.lease_owner = $2 AND o.state = 'pending'
                    RETURNING a.n, a.at_ms, a.error, a.kind
                ), changed AS (
                    SELECT * FROM delivered UNION ALL SELECT * FROM retried UNION ALL SELECT * FROM gave_up
                ), latest_error AS (
                    SELECT error, at_ms FROM changed WHERE error IS NOT NULL ORDER BY at_ms DESC, n DESC LIMIT 1
                )
                INSERT INTO webhook_endpoints AS w (endpoint, delivered, failed, last_delivered_at_ms, last_error, last_error_at_ms)
                SELECT $1, count(*) FILTER (WHERE kind = 'delivered'), count(*) FILTER (WHERE kind = 'gave_up'),
                  max(at_ms) FILTER (WHERE kind = 'delivered'), (SELECT error FROM latest_error), (SELECT at_ms FROM latest_error)
                FROM changed
                ON CONFLICT (endpoint) DO UPDATE SET delivered = w.delivered + excluded.delivered, failed = w.failed + excluded.failed,
                  last_delivered_at_ms = GREATEST(w.last_delivered_at_ms, excluded.last_delivered_at_ms),
                  last_error = COALESCE(excluded.last_error, w.last_error), last_error_at_ms = COALESCE(excluded.last_error_at_ms, w.last_error_at_ms)
                """,
                [
                    endpoint, owner, PostgresArrayLiteral.integers(attempts.map(\.seq)), PostgresArrayLiteral.text(kinds),
                    PostgresArrayLiteral.integers(next), PostgresArrayLiteral.integers(attempts.map(\.status)),
                    PostgresArrayLiteral.text(attempts.map(\.error)), PostgresArrayLiteral.integers(attempts.map(\.atMs)),
                    PostgresArrayLiteral.integers(attempts.map { $0.sent ? 1 : 0 }), given,
                ], prepare: true)
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
                SELECT endpoint, COUNT(*), COUNT(*) FILTER (WHERE failures > 0), MIN(created_at_ms)
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
