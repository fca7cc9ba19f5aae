import Foundation

/// Schema version 10 in PostgreSQL: the SQLite store's (`SQLiteStore+Version10`: fair campaigns,
/// their media check and variants, who saw a push, conversions), in PostgreSQL types.
extension PostgresStore {
    /// Version 10 (`IF NOT EXISTS` throughout: a step run again must not fail).
    static let migrateToVersion10 = """
        ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS queue_priority integer NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS last_claim_ms bigint NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS next_claim_ms bigint NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS media_report text,
            ADD COLUMN IF NOT EXISTS test_share integer,
            ADD COLUMN IF NOT EXISTS test_window_ms bigint,
            ADD COLUMN IF NOT EXISTS winner_by text,
            ADD COLUMN IF NOT EXISTS winner text,
            ADD COLUMN IF NOT EXISTS winner_at_ms bigint,
            ADD COLUMN IF NOT EXISTS attribution_ms bigint,
            ADD COLUMN IF NOT EXISTS variant_count integer NOT NULL DEFAULT 0;
        ALTER TABLE campaign_chunks ADD COLUMN IF NOT EXISTS phase text NOT NULL DEFAULT 'main';
        ALTER TABLE campaign_targets ADD COLUMN IF NOT EXISTS variant text;
        CREATE TABLE IF NOT EXISTS campaign_variants (
            campaign_id text NOT NULL,
            variant text NOT NULL,
            push_id text NOT NULL,
            title text,
            payload text NOT NULL,
            weight integer NOT NULL,
            media_report text,
            PRIMARY KEY (campaign_id, variant)
        );
        ALTER TABLE devices ADD COLUMN IF NOT EXISTS device_id text,
            ADD COLUMN IF NOT EXISTS device_secret text,
            ADD COLUMN IF NOT EXISTS recipient_receipts boolean NOT NULL DEFAULT false;
        CREATE UNIQUE INDEX IF NOT EXISTS devices_device_id ON devices (device_id) WHERE device_id IS NOT NULL;
        ALTER TABLE receipts ADD COLUMN IF NOT EXISTS device_id text;
        CREATE INDEX IF NOT EXISTS receipts_recipients ON receipts (push_id, event, device_id COLLATE "C") WHERE device_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS receipts_device ON receipts (device_id) WHERE device_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS receipts_device_age ON receipts (received_at_ms) WHERE device_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS push_tokens_device ON push_tokens (device_token, sent_at_ms);
        CREATE TABLE IF NOT EXISTS conversions (
            push_id text NOT NULL,
            conversion_id text NOT NULL,
            campaign_id text,
            variant text,
            device_id text,
            user_id text,
            value double precision,
            occurred_at_ms bigint NOT NULL,
            recorded_at_ms bigint NOT NULL,
            PRIMARY KEY (push_id, conversion_id)
        );
        CREATE INDEX IF NOT EXISTS conversions_user ON conversions (user_id) WHERE user_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS conversions_device ON conversions (device_id) WHERE device_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS conversions_recorded ON conversions (recorded_at_ms);
        ALTER TABLE webhook_outbox ADD COLUMN IF NOT EXISTS failures integer NOT NULL DEFAULT 0;
        UPDATE webhook_outbox SET failures = attempts;
        UPDATE richpush_meta SET value = '10' WHERE key = 'schema_version';
        """
}
