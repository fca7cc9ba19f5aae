import Foundation
import RichPushCore

/// The PostgreSQL schema and its migration, run by every store on start.
///
/// The tables and columns are the SQLite store's (schema version 10, the same number; v10, fair
/// campaigns, variants, recipients and conversions, in `PostgresStore+Version10`; v5 adds
/// `idempotency_keys`; v6, the media edge's tables, is in `PostgresStore+Media`; v7, campaigns
/// and device tags, in `PostgresStore+Campaigns`; v8, the webhook outbox, in
/// `PostgresStore+Webhooks`; v9, `admitted_codes`, in `PostgresStore+Bounds`), in
/// PostgreSQL types (`text`, `bigint`), plus a `slot` in the keys of the two counter tables
/// (`push_counts`, `push_elapsed`): each writer connection adds to rows of its own slot (0…15),
/// so concurrent writers — of one instance or of several — do not queue on one hot row's lock
/// (which would serialize their commits, one WAL flush after another); readers sum the slots
/// (at most 16 rows per counter). Every primary and unique key that concerns a push is
/// led by `push_id`, so `receipts`, `push_counts`, `push_elapsed`, `pushes` and `push_tokens`
/// and `push_send_batches` can be hash-partitioned (`PARTITION BY HASH (push_id)`) or
/// distributed by Citus (`create_distributed_table('receipts', 'push_id')`) without changing a
/// key; `device_tokens` and `devices` (one row per device token) stay whole (Citus reference
/// tables).
/// `richpush_meta` holds the schema version; `richpush_migrations` remembers how far
/// `richpush migrate` copied each SQLite file, so re-running it copies nothing twice.
///
/// Version 4 adds the SQLite store's summaries (see `SQLiteStore`), so reads do not grow with the
/// number of pushes: `push_index` (push id in byte order, `COLLATE "C"` as SQLite compares, and
/// when it started, indexed for keyset pages), and the counters `totals`, `reason_totals`,
/// `elapsed_totals` and `timeline` — slotted like `push_counts` (each writer connection adds to
/// its own rows; readers sum at most 16 per key), so no batch waits on another's row lock.
///
/// Several `richpush serve` starting at once on an empty database are safe: the migration runs
/// in one transaction holding a transaction-level advisory lock (`pg_advisory_xact_lock`), so the
/// others wait, then read the version the first one committed and do nothing. DDL is
/// transactional in PostgreSQL, so a migration that fails leaves nothing half-made.
enum PostgresSchema {
    /// The schema version this richpush writes (`richpush_meta.schema_version`).
    static let version = 10

    /// The advisory lock key every RichPush migration takes: the bytes of "richpush" as a bigint.
    static let advisoryLockKey: Int64 = 0x7269_6368_7075_7368

    /// Counter slots per key (`push_counts.slot`, `push_elapsed.slot`: 0…slots-1).
    static let slots = 16

    /// The tables of this version (what a foreign database is checked against).
    static let tables = [
        "receipts", "push_counts", "push_elapsed", "pushes", "push_tokens", "device_tokens", "push_send_batches", "devices", "richpush_meta",
        "richpush_migrations", "push_index", "totals", "reason_totals", "elapsed_totals", "timeline", "idempotency_keys", "media_objects",
        "push_media", "campaigns", "campaign_chunks", "campaign_targets", "campaign_budget", "device_tags",
        "webhook_outbox", "webhook_endpoints", "admitted_codes", "campaign_variants", "conversions",
    ]

    /// Version 2, created at once (there never was a PostgreSQL version 1).
    static let createVersion2 = """
        CREATE TABLE receipts (
            push_id text NOT NULL,
            event text NOT NULL,
            receipt_id text,
            outcome text,
            reason text,
            elapsed_ms bigint,
            media_bytes bigint,
            media_type text,
            user_agent text,
            received_at_ms bigint NOT NULL,
            CONSTRAINT receipts_push_event_receipt UNIQUE (push_id, event, receipt_id)
        );
        CREATE TABLE push_counts (
            push_id text NOT NULL,
            event text NOT NULL,
            outcome text NOT NULL,
            reason text NOT NULL,
            receipts bigint NOT NULL,
            media_bytes bigint NOT NULL,
            first_ms bigint NOT NULL,
            last_ms bigint NOT NULL,
            slot smallint NOT NULL DEFAULT 0,
            PRIMARY KEY (push_id, event, outcome, reason, slot)
        );
        CREATE TABLE push_elapsed (
            push_id text NOT NULL,
            elapsed_ms bigint NOT NULL,
            receipts bigint NOT NULL,
            slot smallint NOT NULL DEFAULT 0,
            PRIMARY KEY (push_id, elapsed_ms, slot)
        );
        CREATE TABLE pushes (
            push_id text PRIMARY KEY,
            title text,
            sent bigint NOT NULL DEFAULT 0,
            accepted bigint NOT NULL DEFAULT 0,
            first_sent_at_ms bigint,
            last_sent_at_ms bigint
        );
        CREATE TABLE push_tokens (
            push_id text NOT NULL,
            device_token text NOT NULL,
            status integer,
            reason text,
            apns_id text,
            sent_at_ms bigint NOT NULL,
            outcome text,
            PRIMARY KEY (push_id, device_token)
        );
        CREATE TABLE device_tokens (
            device_token text PRIMARY KEY,
            state text NOT NULL,
            reason text,
            since_ms bigint,
            updated_at_ms bigint NOT NULL
        );
        CREATE TABLE richpush_migrations (
            source text NOT NULL,
            item text NOT NULL,
            last_rowid bigint NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (source, item)
        );
        CREATE TABLE richpush_meta (
            key text PRIMARY KEY,
            value text NOT NULL
        );
        INSERT INTO richpush_meta (key, value) VALUES ('schema_version', '2');
        """

    /// Version 3 (issue 11), as SQLite's: `push_send_batches` (each recorded batch of sends with
    /// its source; one row per push and batch id, so a batch is counted once), `devices` (tokens
    /// the app registered), `pushes.skipped`. Pushes sent before have one batch `before-v3` from
    /// `apns`, the only way sends were recorded then. Idempotent (a partitioned schema made by
    /// `deploy/postgres/partitioned-schema.sql` may already have them).
    static let migrateToVersion3 = """
        ALTER TABLE pushes ADD COLUMN IF NOT EXISTS skipped bigint NOT NULL DEFAULT 0;
        CREATE TABLE IF NOT EXISTS push_send_batches (
            push_id text NOT NULL,
            batch_id text NOT NULL,
            source text NOT NULL,
            sent bigint NOT NULL,
            accepted bigint NOT NULL,
            skipped bigint NOT NULL,
            recorded_at_ms bigint NOT NULL,
            PRIMARY KEY (push_id, batch_id)
        );
        INSERT INTO push_send_batches (push_id, batch_id, source, sent, accepted, skipped, recorded_at_ms)
            SELECT push_id, 'before-v3', 'apns', sent, accepted, 0, COALESCE(last_sent_at_ms, 0) FROM pushes WHERE sent > 0 OR accepted > 0
            ON CONFLICT DO NOTHING;
        CREATE TABLE IF NOT EXISTS devices (
            device_token text PRIMARY KEY,
            provider text NOT NULL,
            platform text NOT NULL,
            user_id text,
            app_version text,
            registered_at_ms bigint NOT NULL
        );
        CREATE INDEX IF NOT EXISTS devices_user ON devices (user_id, registered_at_ms) WHERE user_id IS NOT NULL;
        UPDATE richpush_meta SET value = '3' WHERE key = 'schema_version';
        """

    /// Version 4: the summaries, filled from what version 3 holds (one pass, in the migration's
    /// transaction; nothing to fill on a new database).
    static let migrateToVersion4 = """
        CREATE TABLE push_index (
            push_id text COLLATE "C" PRIMARY KEY,
            started_ms bigint NOT NULL
        );
        CREATE INDEX push_index_started ON push_index (started_ms, push_id);
        CREATE TABLE totals (
            slot smallint PRIMARY KEY,
            receipts bigint NOT NULL DEFAULT 0,
            delivered bigint NOT NULL DEFAULT 0,
            opened bigint NOT NULL DEFAULT 0,
            media_attached bigint NOT NULL DEFAULT 0,
            with_outcome bigint NOT NULL DEFAULT 0,
            with_reason bigint NOT NULL DEFAULT 0,
            sent bigint NOT NULL DEFAULT 0,
            accepted bigint NOT NULL DEFAULT 0,
            pushes bigint NOT NULL DEFAULT 0,
            first_receipt_ms bigint,
            last_receipt_ms bigint
        );
        CREATE TABLE reason_totals (
            reason text COLLATE "C" NOT NULL,
            slot smallint NOT NULL,
            receipts bigint NOT NULL,
            PRIMARY KEY (reason, slot)
        );
        CREATE TABLE elapsed_totals (
            elapsed_ms bigint NOT NULL,
            slot smallint NOT NULL,
            receipts bigint NOT NULL,
            PRIMARY KEY (elapsed_ms, slot)
        );
        CREATE TABLE timeline (
            width_ms bigint NOT NULL,
            bucket_ms bigint NOT NULL,
            slot smallint NOT NULL,
            delivered bigint NOT NULL,
            opened bigint NOT NULL,
            PRIMARY KEY (width_ms, bucket_ms, slot)
        );
        INSERT INTO push_index (push_id, started_ms)
          SELECT push_id, MIN(ms) FROM (
            SELECT push_id, MIN(first_ms) AS ms FROM push_counts GROUP BY push_id
            UNION ALL SELECT push_id, COALESCE(first_sent_at_ms, last_sent_at_ms, 0) FROM pushes
          ) AS known GROUP BY push_id;
        INSERT INTO totals (slot, receipts, delivered, opened, media_attached, with_outcome, with_reason, sent, accepted, pushes,
                            first_receipt_ms, last_receipt_ms)
          SELECT 0,
            (SELECT COALESCE(SUM(receipts), 0) FROM push_counts),
            (SELECT COALESCE(SUM(receipts), 0) FROM push_counts WHERE event = 'delivered'),
            (SELECT COALESCE(SUM(receipts), 0) FROM push_counts WHERE event = 'opened'),
            (SELECT COALESCE(SUM(receipts), 0) FROM push_counts WHERE event = 'delivered' AND outcome = 'media_attached'),
            (SELECT COALESCE(SUM(receipts), 0) FROM push_counts WHERE event = 'delivered' AND outcome <> ''),
            (SELECT COALESCE(SUM(receipts), 0) FROM push_counts WHERE event = 'delivered' AND reason <> ''),
            (SELECT COALESCE(SUM(sent), 0) FROM pushes),
            (SELECT COALESCE(SUM(accepted), 0) FROM pushes),
            (SELECT COUNT(*) FROM push_index),
            (SELECT MIN(first_ms) FROM push_counts),
            (SELECT MAX(last_ms) FROM push_counts);
        INSERT INTO reason_totals (reason, slot, receipts)
          SELECT reason, 0, SUM(receipts) FROM push_counts WHERE event = 'delivered' AND reason <> '' GROUP BY reason;
        INSERT INTO elapsed_totals (elapsed_ms, slot, receipts)
          SELECT \(ElapsedQuantizer.sql), 0, SUM(receipts) FROM push_elapsed GROUP BY 1;
        INSERT INTO timeline (width_ms, bucket_ms, slot, delivered, opened)
          SELECT w.width, r.received_at_ms / w.width * w.width, 0,
                 COUNT(*) FILTER (WHERE r.event = 'delivered'), COUNT(*) FILTER (WHERE r.event = 'opened')
          FROM receipts r CROSS JOIN (VALUES (60000::bigint), (3600000::bigint), (86400000::bigint)) AS w(width)
          GROUP BY 1, 2;
        INSERT INTO timeline (width_ms, bucket_ms, slot, delivered, opened)
          SELECT 1000, received_at_ms / 1000 * 1000, 0, COUNT(*) FILTER (WHERE event = 'delivered'), COUNT(*) FILTER (WHERE event = 'opened')
          FROM receipts WHERE received_at_ms >= (SELECT MAX(received_at_ms) FROM receipts) - \(TimelinePlan.secondsRetentionMs)
          GROUP BY 2;
        UPDATE richpush_meta SET value = '4' WHERE key = 'schema_version';
        """

    /// Version 5: `idempotency_keys` (`Idempotency-Key` on `POST /v1/pushes`, see
    /// `PostgresStore+Idempotency`), as SQLite's.
    static let migrateToVersion5 = """
        CREATE TABLE IF NOT EXISTS idempotency_keys (
            scope text NOT NULL,
            idempotency_key text NOT NULL,
            body_sha256 text NOT NULL,
            state text NOT NULL,
            status integer,
            response text,
            created_at_ms bigint NOT NULL,
            lease_until_ms bigint NOT NULL,
            expires_at_ms bigint NOT NULL,
            PRIMARY KEY (scope, idempotency_key)
        );
        CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at_ms);
        UPDATE richpush_meta SET value = '5' WHERE key = 'schema_version';
        """

    /// Brings the database to `version` under the advisory lock (see the type's discussion).
    ///
    /// - Parameter connection: a connection outside any transaction.
    /// - Throws: `PostgresError` from the server; `RichPushError` `store` when the database holds
    ///   a newer RichPush schema or tables of the same names that are not RichPush's.
    static func migrate(_ connection: PostgresConnection) throws {
        try connection.execute("BEGIN")
        do {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [String(advisoryLockKey)])
            // Tables are looked up (and created) in the first schema of the search_path only.
            let hasMeta =
                try connection.execute(
                    "SELECT to_regclass(quote_ident(current_schema()) || '.richpush_meta') IS NOT NULL"
                ).text(0, 0) == "t"
            var current = 0
            if hasMeta {
                let stored = try connection.execute("SELECT value FROM richpush_meta WHERE key = 'schema_version'").text(0, 0)
                current = stored.flatMap { Int($0) } ?? 0
            }
            if current > version {
                throw RichPushError(
                    code: .store,
                    message:
                        "the PostgreSQL database \(connection.info.redacted) has RichPush schema version \(current), newer than this richpush (\(version)); upgrade richpush"
                )
            }
            if current == 0 {
                let found = try connection.execute(
                    "SELECT string_agg(name, ', ' ORDER BY name) FROM unnest($1::text[]) AS t(name) WHERE to_regclass(quote_ident(current_schema()) || '.' || quote_ident(name)) IS NOT NULL",
                    [PostgresArrayLiteral.text(tables)]
                ).text(0, 0)
                if let found {
                    throw RichPushError(
                        code: .store,
                        message:
                            "the PostgreSQL database \(connection.info.redacted) already has tables that are not RichPush's (\(found)); use an empty database, or a schema of its own: add ?options=-csearch_path%3Drichpush to the URL after CREATE SCHEMA richpush"
                    )
                }
                try connection.execute(createVersion2)
                current = 2
            }
            if current < 3 { try connection.execute(migrateToVersion3) }
            if current < 4 { try connection.execute(migrateToVersion4) }
            if current < 5 { try connection.execute(migrateToVersion5) }
            if current < 6 { try connection.execute(PostgresStore.migrateToVersion6) }
            if current < 7 { try connection.execute(PostgresStore.migrateToVersion7) }
            if current < 8 { try connection.execute(PostgresStore.migrateToVersion8) }
            if current < 9 { try connection.execute(PostgresStore.migrateToVersion9) }
            if current < 10 { try connection.execute(PostgresStore.migrateToVersion10) }
            try connection.execute("COMMIT")
        } catch {
            if connection.isConnected { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }
}
