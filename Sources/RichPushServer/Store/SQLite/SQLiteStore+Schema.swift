import CSQLite
import Foundation
import RichPushCore

/// The SQLite store's older schema steps (versions 1 to 3), run by `SQLiteStore.migrate` inside
/// its transaction; later steps live beside the feature they add (`+Idempotency`, `+Media`).
extension SQLiteStore {
    /// Whether `table` has a column named `column` (`pragma table_info`).
    static func hasColumn(_ db: SQLiteConnection, table: String, column: String) throws -> Bool {
        let query = try db.prepared("SELECT 1 FROM pragma_table_info(?) WHERE name = ?")
        try query.bind([.text(table), .text(column)])
        return try !query.rows { _ in true }.isEmpty
    }

    /// Version 2: `device_tokens`, what APNs said about a device token (410 inactive, bad for the
    /// topic or environment), and `push_tokens.outcome` (the provider's verdict per token).
    /// Runs inside `migrate`'s transaction; an `outcome` column already there is kept.
    static func migrateToVersion2(_ db: SQLiteConnection) throws {
        if try !hasColumn(db, table: "push_tokens", column: "outcome") {
            try db.execute("ALTER TABLE push_tokens ADD COLUMN outcome TEXT")
        }
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS device_tokens (
                device_token TEXT PRIMARY KEY,
                state TEXT NOT NULL,
                reason TEXT,
                since_ms INTEGER,
                updated_at_ms INTEGER NOT NULL
            );
            """
        )
    }

    /// Version 3: `push_send_batches` (where each push's figures come from, one row per batch,
    /// unique per push and batch id), `devices` (registrations by the app), `pushes.skipped`.
    /// Sends recorded before version 3 came from `POST /v1/pushes` through APNs: each such push
    /// gets one batch `before-v3` from `apns` with its counts, so its source is known.
    static func migrateToVersion3(_ db: SQLiteConnection) throws {
        if try !hasColumn(db, table: "pushes", column: "skipped") {
            try db.execute("ALTER TABLE pushes ADD COLUMN skipped INTEGER NOT NULL DEFAULT 0")
        }
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS push_send_batches (
                push_id TEXT NOT NULL,
                batch_id TEXT NOT NULL,
                source TEXT NOT NULL,
                sent INTEGER NOT NULL,
                accepted INTEGER NOT NULL,
                skipped INTEGER NOT NULL,
                recorded_at_ms INTEGER NOT NULL,
                PRIMARY KEY (push_id, batch_id)
            );
            INSERT OR IGNORE INTO push_send_batches (push_id, batch_id, source, sent, accepted, skipped, recorded_at_ms)
                SELECT push_id, 'before-v3', 'apns', sent, accepted, 0, COALESCE(last_sent_at_ms, 0) FROM pushes WHERE sent > 0 OR accepted > 0;
            CREATE TABLE IF NOT EXISTS devices (
                device_token TEXT PRIMARY KEY,
                provider TEXT NOT NULL,
                platform TEXT NOT NULL,
                user_id TEXT,
                app_version TEXT,
                registered_at_ms INTEGER NOT NULL
            );
            CREATE INDEX IF NOT EXISTS devices_user ON devices (user_id, registered_at_ms) WHERE user_id IS NOT NULL;
            """
        )
    }

    /// Version 1: receipts, their aggregates, pushes and per-token sends (inside `migrate`'s transaction).
    static func createVersion1(_ db: SQLiteConnection) throws {
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS receipts (
                id INTEGER PRIMARY KEY,
                push_id TEXT NOT NULL,
                event TEXT NOT NULL,
                receipt_id TEXT,
                outcome TEXT,
                reason TEXT,
                elapsed_ms INTEGER,
                media_bytes INTEGER,
                media_type TEXT,
                user_agent TEXT,
                received_at_ms INTEGER NOT NULL
            );
            CREATE UNIQUE INDEX IF NOT EXISTS receipts_push_event_receipt ON receipts (push_id, event, receipt_id);
            CREATE TABLE IF NOT EXISTS push_counts (
                push_id TEXT NOT NULL,
                event TEXT NOT NULL,
                outcome TEXT NOT NULL,
                reason TEXT NOT NULL,
                receipts INTEGER NOT NULL,
                media_bytes INTEGER NOT NULL,
                first_ms INTEGER NOT NULL,
                last_ms INTEGER NOT NULL,
                PRIMARY KEY (push_id, event, outcome, reason)
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS push_elapsed (
                push_id TEXT NOT NULL,
                elapsed_ms INTEGER NOT NULL,
                receipts INTEGER NOT NULL,
                PRIMARY KEY (push_id, elapsed_ms)
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS pushes (
                push_id TEXT PRIMARY KEY,
                title TEXT,
                sent INTEGER NOT NULL DEFAULT 0,
                accepted INTEGER NOT NULL DEFAULT 0,
                first_sent_at_ms INTEGER,
                last_sent_at_ms INTEGER
            );
            CREATE TABLE IF NOT EXISTS push_tokens (
                push_id TEXT NOT NULL,
                device_token TEXT NOT NULL,
                status INTEGER,
                reason TEXT,
                apns_id TEXT,
                sent_at_ms INTEGER NOT NULL,
                PRIMARY KEY (push_id, device_token)
            );
            """
        )
    }
}
