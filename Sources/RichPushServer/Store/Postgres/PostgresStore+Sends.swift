import Foundation
import RichPushCore

/// Recorded sends in PostgreSQL (`ReceiptStore.recordSend(_:)`): one statement per batch.
extension PostgresStore {
    /// Records one batch of sends (see `ReceiptStore.recordSend(_:)`) in one statement: the
    /// batch row (whose key makes the batch count once: a second instance recording it at the
    /// same moment waits for the first and then records nothing), the push's counts, each
    /// token's outcome (the last result per token when a token repeats) and the device-token
    /// states (marked when the provider judged the token; cleared by a later acceptance), as
    /// SQLite does in order.
    @discardableResult
    public func recordSend(_ send: PushSendRecord) throws -> SendRecording {
        guard !send.webhookDeliveries.isEmpty else { return try pooled { try Self.recordSend(send, on: $0) } }
        // With webhook events: the same transaction (events only when the batch was recorded).
        return try pooled { c in
            try Self.inTransaction(c) {
                let recording = try Self.recordSend(send, on: c)
                if recording == .recorded { try Self.insertWebhookDeliveries(send.webhookDeliveries, on: c) }
                return recording
            }
        }
    }

    /// The statement behind `recordSend(_:)` (also used by `richpush migrate` for whole pushes).
    @discardableResult
    static func recordSend(_ send: PushSendRecord, on connection: PostgresConnection) throws -> SendRecording {
        var last: [String: PushSendRecord.TokenResult] = [:]
        var decisive: [String: PushSendRecord.TokenResult] = [:]
        for t in send.tokens {
            last[t.deviceToken] = t
            if t.state != nil || t.wasAccepted { decisive[t.deviceToken] = t }
        }
        let tokens = last.keys.sorted()
        let states = decisive.keys.sorted()
        let counts = send.counts
        let batchID = send.batchID ?? "unkeyed-" + UUID().uuidString.lowercased()
        let recorded = try connection.execute(
            """
            WITH batch AS (
                INSERT INTO push_send_batches (push_id, batch_id, source, sent, accepted, skipped, recorded_at_ms)
                VALUES ($1, $15, $16, $3, $4, $17, $5)
                ON CONFLICT (push_id, batch_id) DO NOTHING
                RETURNING 1
            ), push AS (
                INSERT INTO pushes AS p (push_id, title, sent, accepted, skipped, first_sent_at_ms, last_sent_at_ms)
                SELECT $1, $2, $3, $4, $17, $5, $5 FROM batch
                ON CONFLICT (push_id) DO UPDATE SET sent = p.sent + excluded.sent, accepted = p.accepted + excluded.accepted,
                    skipped = p.skipped + excluded.skipped, title = COALESCE(excluded.title, p.title),
                    first_sent_at_ms = LEAST(COALESCE(p.first_sent_at_ms, excluded.first_sent_at_ms), excluded.first_sent_at_ms),
                    last_sent_at_ms = GREATEST(COALESCE(p.last_sent_at_ms, excluded.last_sent_at_ms), excluded.last_sent_at_ms)
            ), sends AS (
                INSERT INTO push_tokens AS t (push_id, device_token, status, reason, apns_id, sent_at_ms, outcome)
                SELECT $1, device_token, status, reason, apns_id, $5, outcome
                FROM unnest($6::text[], $7::integer[], $8::text[], $9::text[], $10::text[]) AS u(device_token, status, reason, apns_id, outcome)
                WHERE EXISTS (SELECT 1 FROM batch)
                ORDER BY device_token
                ON CONFLICT (push_id, device_token) DO UPDATE SET status = excluded.status, reason = excluded.reason,
                    apns_id = excluded.apns_id, sent_at_ms = excluded.sent_at_ms, outcome = excluded.outcome
            ), states AS (
                SELECT * FROM unnest($11::text[], $12::text[], $13::text[], $14::bigint[]) AS s(device_token, state, reason, since_ms)
                WHERE EXISTS (SELECT 1 FROM batch)
            ), marked AS (
                INSERT INTO device_tokens AS d (device_token, state, reason, since_ms, updated_at_ms)
                SELECT device_token, state, reason, since_ms, $5 FROM states WHERE state IS NOT NULL ORDER BY device_token
                ON CONFLICT (device_token) DO UPDATE SET state = excluded.state, reason = excluded.reason,
                    since_ms = excluded.since_ms, updated_at_ms = excluded.updated_at_ms
            ), cleared AS (
                DELETE FROM device_tokens WHERE device_token IN (SELECT device_token FROM states WHERE state IS NULL)
            ), new_push AS (
                INSERT INTO push_index (push_id, started_ms) SELECT $1, $5 FROM batch ON CONFLICT (push_id) DO NOTHING RETURNING push_id
            ), earlier AS (
                UPDATE push_index SET started_ms = $5 WHERE push_id = $1 AND started_ms > $5 AND EXISTS (SELECT 1 FROM batch)
            ), send_totals AS (
                INSERT INTO totals AS s (slot, sent, accepted, pushes) SELECT $18::smallint, $3, $4, (SELECT count(*) FROM new_push) FROM batch
                ON CONFLICT (slot) DO UPDATE SET sent = s.sent + excluded.sent, accepted = s.accepted + excluded.accepted,
                    pushes = s.pushes + excluded.pushes
            )
            SELECT count(*) FROM batch
            """,
            [
                send.pushID, send.title, String(counts.sent), String(counts.accepted), String(send.sentAtMs),
                PostgresArrayLiteral.text(tokens), PostgresArrayLiteral.integers(tokens.map { last[$0]?.status }),
                PostgresArrayLiteral.text(tokens.map { last[$0]?.reason }), PostgresArrayLiteral.text(tokens.map { last[$0]?.apnsID }),
                PostgresArrayLiteral.text(tokens.map { last[$0]?.outcome }),
                PostgresArrayLiteral.text(states), PostgresArrayLiteral.text(states.map { decisive[$0]?.state?.rawValue }),
                PostgresArrayLiteral.text(states.map { decisive[$0]?.reason }),
                PostgresArrayLiteral.integers(states.map { decisive[$0]?.inactiveSinceMs }),
                batchID, send.source, String(counts.skipped), String(connection.slot),
            ],
            prepare: true
        )
        if recorded.int(0, 0) == 1 { return .recorded }
        let existing = try connection.execute(
            "SELECT source, sent, accepted, skipped FROM push_send_batches WHERE push_id = $1 AND batch_id = $2", [send.pushID, batchID])
        let source = existing.text(0, 0) ?? "", sent = existing.int(0, 1) ?? 0, accepted = existing.int(0, 2) ?? 0, skipped = existing.int(0, 3) ?? 0
        if source == send.source, sent == counts.sent, accepted == counts.accepted, skipped == counts.skipped { return .duplicate }
        return .conflict(source: source, sent: sent, accepted: accepted, skipped: skipped)
    }
}
