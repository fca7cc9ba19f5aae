import Foundation
import RichPushCore

/// Idempotency keys in PostgreSQL (`IdempotencyStore`). Each statement runs in a transaction of
/// its own, committed before it returns; the claim is one `INSERT … ON CONFLICT DO NOTHING` on
/// the primary key (scope, key), so of two instances racing for one key exactly one inserts the
/// row (the other waits on the unique index until the first commits, then conflicts). Leases and
/// windows are compared on the database's clock (`clock`), so an instance whose clock is ahead
/// takes no claim over early.
extension PostgresStore: IdempotencyStore {
    /// See `IdempotencyStore.claimIdempotencyKey(_:scope:bodySHA256:nowMs:leaseMs:windowMs:)`.
    public func claimIdempotencyKey(
        _ key: String, scope: String, bodySHA256: String, nowMs: Int, leaseMs: Int, windowMs: Int
    ) throws -> IdempotencyClaim {
        let given = clockValue(nowMs)
        return try pooled { db in
            // The row is read right after a conflict; a purge or takeover in between makes the
            // insert worth trying again (at most a few times).
            for _ in 0..<3 {
                // An answer past its window, or a claim whose lease ran out (its instance died), gives way.
                try db.execute(
                    """
                    DELETE FROM idempotency_keys WHERE scope = $1 AND idempotency_key = $2
                      AND ((state = 'done' AND expires_at_ms <= \(Self.now("$3"))) OR (state = 'in_progress' AND lease_until_ms <= \(Self.now("$3"))))
                    """,
                    [scope, key, given])
                let inserted = try db.execute(
                    """
                    WITH t AS (SELECT \(Self.now("$4")) AS now)
                    INSERT INTO idempotency_keys (scope, idempotency_key, body_sha256, state, created_at_ms, lease_until_ms, expires_at_ms)
                    SELECT $1, $2, $3, 'in_progress', t.now, t.now + $5::bigint, t.now + $6::bigint FROM t ON CONFLICT DO NOTHING RETURNING 1
                    """,
                    [scope, key, bodySHA256, given, String(leaseMs), String(windowMs)])
                if inserted.count == 1 { return .claimed }
                let row = try db.execute(
                    "SELECT body_sha256, state, status, response, lease_until_ms FROM idempotency_keys WHERE scope = $1 AND idempotency_key = $2",
                    [scope, key])
                guard row.count == 1 else { continue }
                return IdempotencyClaim.found(
                    storedSHA256: row.text(0, 0) ?? "", state: row.text(0, 1) ?? "", status: row.int(0, 2), response: row.text(0, 3),
                    leaseUntilMs: row.int(0, 4) ?? 0, bodySHA256: bodySHA256)
            }
            throw RichPushError(code: .store, message: "the idempotency key kept changing hands while it was claimed; retry")
        }
    }

    /// See `IdempotencyStore.completeIdempotencyKey(_:scope:bodySHA256:status:response:)`.
    public func completeIdempotencyKey(_ key: String, scope: String, bodySHA256: String, status: Int, response: String) throws {
        try pooled { db in
            _ = try db.execute(
                """
                UPDATE idempotency_keys SET state = 'done', status = $4, response = $5
                WHERE scope = $1 AND idempotency_key = $2 AND body_sha256 = $3 AND state = 'in_progress'
                """,
                [scope, key, bodySHA256, String(status), response])
        }
    }

    /// See `IdempotencyStore.releaseIdempotencyKey(_:scope:bodySHA256:)`.
    public func releaseIdempotencyKey(_ key: String, scope: String, bodySHA256: String) throws {
        try pooled { db in
            _ = try db.execute(
                "DELETE FROM idempotency_keys WHERE scope = $1 AND idempotency_key = $2 AND body_sha256 = $3 AND state = 'in_progress'",
                [scope, key, bodySHA256])
        }
    }

    /// See `IdempotencyStore.purgeIdempotencyKeys(nowMs:)`.
    public func purgeIdempotencyKeys(nowMs: Int) throws -> Int {
        let given = clockValue(nowMs)
        return try pooled { db in
            let result = try db.execute(
                "DELETE FROM idempotency_keys WHERE expires_at_ms <= \(Self.now("$1")) AND (state = 'done' OR lease_until_ms <= \(Self.now("$1")))",
                [given])
            return Int(result.commandStatus.split(separator: " ").last ?? "") ?? 0
        }
    }
}
