import CSQLite
import Foundation
import RichPushCore

/// Idempotency keys in SQLite (`IdempotencyStore`): one process writes the file, under the
/// write lock, each claim committed (and synced) before it returns.
extension SQLiteStore: IdempotencyStore {
    /// Version 5: `idempotency_keys` (inside `migrate`'s transaction).
    static func migrateToVersion5(_ db: SQLiteConnection) throws {
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS idempotency_keys (
              scope TEXT NOT NULL,
              idempotency_key TEXT NOT NULL,
              body_sha256 TEXT NOT NULL,
              state TEXT NOT NULL,
              status INTEGER,
              response TEXT,
              created_at_ms INTEGER NOT NULL,
              lease_until_ms INTEGER NOT NULL,
              expires_at_ms INTEGER NOT NULL,
              PRIMARY KEY (scope, idempotency_key)
            );
            CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at_ms);
            """)
    }

    /// See `IdempotencyStore.claimIdempotencyKey(_:scope:bodySHA256:nowMs:leaseMs:windowMs:)`.
    public func claimIdempotencyKey(
        _ key: String, scope: String, bodySHA256: String, nowMs: Int, leaseMs: Int, windowMs: Int
    ) throws -> IdempotencyClaim {
        try writeTransaction { db in
            let stale = try db.prepared(
                """
                DELETE FROM idempotency_keys WHERE scope = ? AND idempotency_key = ?
                  AND ((state = 'done' AND expires_at_ms <= ?) OR (state = 'in_progress' AND lease_until_ms <= ?))
                """)
            try stale.bind([.text(scope), .text(key), .integer(nowMs), .integer(nowMs)])
            try stale.run()
            let insert = try db.prepared(
                """
                INSERT INTO idempotency_keys (scope, idempotency_key, body_sha256, state, created_at_ms, lease_until_ms, expires_at_ms)
                VALUES (?, ?, ?, 'in_progress', ?, ?, ?) ON CONFLICT DO NOTHING
                """)
            try insert.bind([.text(scope), .text(key), .text(bodySHA256), .integer(nowMs), .integer(nowMs + leaseMs), .integer(nowMs + windowMs)])
            try insert.run()
            if db.changes > 0 { return .claimed }
            let row = try db.prepared(
                "SELECT body_sha256, state, status, response, lease_until_ms FROM idempotency_keys WHERE scope = ? AND idempotency_key = ?")
            try row.bind([.text(scope), .text(key)])
            let found = try row.rows {
                IdempotencyClaim.found(
                    storedSHA256: $0.text(0) ?? "", state: $0.text(1) ?? "", status: $0.int(2), response: $0.text(3), leaseUntilMs: $0.int(4) ?? 0,
                    bodySHA256: bodySHA256)
            }
            // Under the write lock nothing else deletes the row between the insert and this read.
            guard let claim = found.first else {
                throw RichPushError(code: .store, message: "the idempotency key vanished while it was claimed; retry")
            }
            return claim
        }
    }

    /// See `IdempotencyStore.completeIdempotencyKey(_:scope:bodySHA256:status:response:)`.
    public func completeIdempotencyKey(_ key: String, scope: String, bodySHA256: String, status: Int, response: String) throws {
        try writeTransaction { db in
            let update = try db.prepared(
                """
                UPDATE idempotency_keys SET state = 'done', status = ?, response = ?
                WHERE scope = ? AND idempotency_key = ? AND body_sha256 = ? AND state = 'in_progress'
                """)
            try update.bind([.integer(status), .text(response), .text(scope), .text(key), .text(bodySHA256)])
            try update.run()
        }
    }

    /// See `IdempotencyStore.releaseIdempotencyKey(_:scope:bodySHA256:)`.
    public func releaseIdempotencyKey(_ key: String, scope: String, bodySHA256: String) throws {
        try writeTransaction { db in
            let delete = try db.prepared(
                "DELETE FROM idempotency_keys WHERE scope = ? AND idempotency_key = ? AND body_sha256 = ? AND state = 'in_progress'")
            try delete.bind([.text(scope), .text(key), .text(bodySHA256)])
            try delete.run()
        }
    }

    /// See `IdempotencyStore.purgeIdempotencyKeys(nowMs:)`.
    public func purgeIdempotencyKeys(nowMs: Int) throws -> Int {
        try writeTransaction { db in
            let delete = try db.prepared(
                "DELETE FROM idempotency_keys WHERE expires_at_ms <= ? AND (state = 'done' OR lease_until_ms <= ?)")
            try delete.bind([.integer(nowMs), .integer(nowMs)])
            try delete.run()
            return db.changes
        }
    }
}
