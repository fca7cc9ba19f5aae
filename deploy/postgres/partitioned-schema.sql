-- RichPush schema version 3 with the push tables hash-partitioned by push_id (docs/scale.md,
-- "Sharding"). Run it once on an empty database before the first `richpush serve`:
--   psql "postgres://richpush@db.internal:5432/richpush" -v ON_ERROR_STOP=1 -f partitioned-schema.sql
-- richpush then finds schema version 3, uses these tables as they are and adds the summaries of version 4 (not partitioned: one row per push or per counter). Every key of a
-- push table leads with push_id, so each receipt, counter and send record lives in the
-- partition of its push; device_tokens and devices (one row per device token) and the
-- bookkeeping tables stay whole. 8 partitions here; choose a power of two that leaves each partition a few
-- million rows (PostgreSQL cannot split a hash partition later without rewriting the table).
-- Tested by Tests/RichPushServerTests/Store/PostgresStoreTests.swift (the same answers as SQLite).
BEGIN;
SELECT pg_advisory_xact_lock(8244229893092897640);  -- RichPush's migration lock ("richpush")

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
) PARTITION BY HASH (push_id);
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
) PARTITION BY HASH (push_id);
CREATE TABLE push_elapsed (
    push_id text NOT NULL,
    elapsed_ms bigint NOT NULL,
    receipts bigint NOT NULL,
    slot smallint NOT NULL DEFAULT 0,
    PRIMARY KEY (push_id, elapsed_ms, slot)
) PARTITION BY HASH (push_id);
CREATE TABLE pushes (
    push_id text PRIMARY KEY,
    title text,
    sent bigint NOT NULL DEFAULT 0,
    accepted bigint NOT NULL DEFAULT 0,
    first_sent_at_ms bigint,
    last_sent_at_ms bigint,
    skipped bigint NOT NULL DEFAULT 0
) PARTITION BY HASH (push_id);
CREATE TABLE push_tokens (
    push_id text NOT NULL,
    device_token text NOT NULL,
    status integer,
    reason text,
    apns_id text,
    sent_at_ms bigint NOT NULL,
    outcome text,
    PRIMARY KEY (push_id, device_token)
) PARTITION BY HASH (push_id);
CREATE TABLE push_send_batches (
    push_id text NOT NULL,
    batch_id text NOT NULL,
    source text NOT NULL,
    sent bigint NOT NULL,
    accepted bigint NOT NULL,
    skipped bigint NOT NULL,
    recorded_at_ms bigint NOT NULL,
    PRIMARY KEY (push_id, batch_id)
) PARTITION BY HASH (push_id);

DO $$
DECLARE
    t text;
    i int;
BEGIN
    FOREACH t IN ARRAY ARRAY['receipts', 'push_counts', 'push_elapsed', 'pushes', 'push_tokens', 'push_send_batches'] LOOP
        FOR i IN 0..7 LOOP
            EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES WITH (MODULUS 8, REMAINDER %s)', t || '_p' || i, t, i);
        END LOOP;
    END LOOP;
END
$$;

CREATE TABLE device_tokens (
    device_token text PRIMARY KEY,
    state text NOT NULL,
    reason text,
    since_ms bigint,
    updated_at_ms bigint NOT NULL
);
CREATE TABLE devices (
    device_token text PRIMARY KEY,
    provider text NOT NULL,
    platform text NOT NULL,
    user_id text,
    app_version text,
    registered_at_ms bigint NOT NULL
);
CREATE INDEX devices_user ON devices (user_id, registered_at_ms) WHERE user_id IS NOT NULL;
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
INSERT INTO richpush_meta (key, value) VALUES ('schema_version', '3');
COMMIT;
