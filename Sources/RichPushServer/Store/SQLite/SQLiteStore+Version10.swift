import CSQLite
import Foundation

/// Schema version 10 (issue 29): fair campaigns, their media check and variants, who saw a push,
/// and conversions.
///
/// - `campaigns`: `queue_priority`, `last_claim_ms` (whose turn it is), `next_claim_ms` (a
///   campaign held off: throttle spent for the second, or stopped by a provider), `media_report`
///   (the send-time media check at creation), the test (`test_share`, `test_window_ms`,
///   `winner_by`, `winner`, `winner_at_ms`), `attribution_ms`, `variant_count`.
/// - `campaign_variants`: each variant's push id, payload, weight and media report.
/// - `campaign_chunks.phase` (`main`, `test`, `rest`: the rest waits for the winner),
///   `campaign_targets.variant`.
/// - `devices`: `device_id` (`dev_` + 32 hex digits: the reference a receipt may carry, never the
///   token), `device_secret` (64 hex digits, the key of the receipt's HMAC), `recipient_receipts`
///   (the app said its receipts name the device: `not_delivered` counts it).
/// - `receipts.device_id`: the registered device an authenticated receipt named (indexed only
///   where set); cleared after the recipients' retention.
/// - `push_tokens_device`: a device token's sends (a user's history, erasure).
/// - `conversions`: `POST /v1/conversions`, attributed to a push (and variant) and a device or user.
/// - `webhook_outbox.failures`: failed tries (the backoff's count); `attempts` now counts only
///   requests that were sent.
extension SQLiteStore {
    /// Adds a column unless it is there (a step run again must not fail).
    private static func addColumn(_ db: SQLiteConnection, _ table: String, _ column: String, _ definition: String) throws {
        if try !hasColumn(db, table: table, column: column) {
            try db.execute("ALTER TABLE \(table) ADD COLUMN \(column) \(definition)")
        }
    }

    /// Version 10 (inside `migrate`'s transaction).
    static func migrateToVersion10(_ db: SQLiteConnection) throws {
        for (column, definition) in [
            ("queue_priority", "INTEGER NOT NULL DEFAULT 0"), ("last_claim_ms", "INTEGER NOT NULL DEFAULT 0"),
            ("next_claim_ms", "INTEGER NOT NULL DEFAULT 0"), ("media_report", "TEXT"), ("test_share", "INTEGER"), ("test_window_ms", "INTEGER"),
            ("winner_by", "TEXT"), ("winner", "TEXT"), ("winner_at_ms", "INTEGER"), ("attribution_ms", "INTEGER"),
            ("variant_count", "INTEGER NOT NULL DEFAULT 0"),
        ] {
            try addColumn(db, "campaigns", column, definition)
        }
        try addColumn(db, "campaign_chunks", "phase", "TEXT NOT NULL DEFAULT 'main'")
        try addColumn(db, "campaign_targets", "variant", "TEXT")
        try addColumn(db, "devices", "device_id", "TEXT")
        try addColumn(db, "devices", "device_secret", "TEXT")
        try addColumn(db, "devices", "recipient_receipts", "INTEGER NOT NULL DEFAULT 0")
        try addColumn(db, "receipts", "device_id", "TEXT")
        if try !hasColumn(db, table: "webhook_outbox", column: "failures") {
            // Before: `attempts` counted claims, so every one of them had failed once it ended.
            try db.execute("ALTER TABLE webhook_outbox ADD COLUMN failures INTEGER NOT NULL DEFAULT 0; UPDATE webhook_outbox SET failures = attempts")
        }
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS campaign_variants (
              campaign_id TEXT NOT NULL,
              variant TEXT NOT NULL,
              push_id TEXT NOT NULL,
              title TEXT,
              payload TEXT NOT NULL,
              weight INTEGER NOT NULL,
              media_report TEXT,
              PRIMARY KEY (campaign_id, variant)
            );
            CREATE UNIQUE INDEX IF NOT EXISTS devices_device_id ON devices (device_id) WHERE device_id IS NOT NULL;
            CREATE INDEX IF NOT EXISTS receipts_recipients ON receipts (push_id, event, device_id) WHERE device_id IS NOT NULL;
            CREATE INDEX IF NOT EXISTS receipts_device ON receipts (device_id) WHERE device_id IS NOT NULL;
            CREATE INDEX IF NOT EXISTS receipts_device_age ON receipts (received_at_ms) WHERE device_id IS NOT NULL;
            CREATE INDEX IF NOT EXISTS push_tokens_device ON push_tokens (device_token, sent_at_ms);
            CREATE TABLE IF NOT EXISTS conversions (
              push_id TEXT NOT NULL,
              conversion_id TEXT NOT NULL,
              campaign_id TEXT,
              variant TEXT,
              device_id TEXT,
              user_id TEXT,
              value REAL,
              occurred_at_ms INTEGER NOT NULL,
              recorded_at_ms INTEGER NOT NULL,
              PRIMARY KEY (push_id, conversion_id)
            );
            CREATE INDEX IF NOT EXISTS conversions_user ON conversions (user_id) WHERE user_id IS NOT NULL;
            CREATE INDEX IF NOT EXISTS conversions_device ON conversions (device_id) WHERE device_id IS NOT NULL;
            CREATE INDEX IF NOT EXISTS conversions_recorded ON conversions (recorded_at_ms);
            """)
    }
}
