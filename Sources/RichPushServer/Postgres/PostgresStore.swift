import Foundation
import RichPushCore

/// The store for running several `richpush serve` instances: PostgreSQL through libpq, behind
/// the same protocols as `SQLiteStore` and with the same answers, byte for byte, at the API.
///
/// Writes: the group-commit writer (`ReceiptWriter`) hands each batch to `insert(_:)`, which
/// sends it as ONE statement (text arrays unnested; one round trip): `INSERT … ON CONFLICT
/// (push_id, event, receipt_id) DO NOTHING RETURNING …` for the receipts, and in the same
/// statement — so the same transaction — the upserts of `push_counts` and `push_elapsed` from
/// the rows it inserted. A statement outside `BEGIN` is its own transaction; libpq returns after
/// its COMMIT (with `synchronous_commit=on`, which every session sets unless the server already
/// syncs at least that hard, after the WAL flush), and only then are the receipts answered `202`.
///
/// Several instances write at once without deadlocks: every statement takes its row locks in
/// one global order (receipts sorted by key, then `push_counts`, then `push_elapsed`, each
/// sorted), and a deadlock or serialization failure would still be retried (up to 3 times; the
/// server rolled the transaction back, so nothing counts twice).
/// Duplicates arriving at two instances at the same moment are decided by the unique key: the
/// second waits for the first's transaction and then counts nothing.
///
/// Connections: a pool of writers, one receipt batch in flight on each (`ReceiptWriter` runs as
/// many writer threads, and starts a batch beside another only once that one has waited
/// `overlapAfter` for its COMMIT's WAL flush; each writer adds to counter rows of its own slot,
/// see `PostgresSchema`), and a pool of 1–2 for reads, `recordSend` and health probes. A lost connection is made again on its next use, at
/// most every 0.5 s while the database is down (meanwhile every write fails at once, so receipts
/// get `503`, never a `202` that was not committed); `health()` reports it for `/healthz`. A
/// statement interrupted by a lost connection is not run again by the store (it may have
/// committed): its receipts get `503`, and the device's retry is deduplicated by its key.
public final class PostgresStore: ReceiptStore, StatisticsStore, ConcurrentBatchStore, StoreHealthReporting, @unchecked Sendable {
    /// The parsed URL (`redacted` for display).
    public let info: PostgresConnectionInfo
    private let writers: PostgresPool
    private let pool: PostgresPool
    private let availability: PostgresAvailability
    private let probeLock = NSLock()
    private let stateLock = NSLock()
    private var closed = false
    /// The hour (ms / 3,600,000) in which old per-second timeline rows were last dropped.
    private var prunedHour = -1
    /// Push ids this instance knows to be in `push_index`, with their start (ms): their receipts'
    /// batches skip the index. Rows are never removed, so the knowledge never goes stale (at
    /// worst, another instance lowered a start: this one then writes nothing new). Bounded
    /// (`knownPushesLimit`), emptied when full.
    private var knownPushes: [String: Int] = [:]
    private let knownLock = NSLock()
    /// The most push ids `knownPushes` holds.
    static let knownPushesLimit = 20_000

    /// Statements every session runs after connecting: raise `synchronous_commit` to `on` when
    /// the server's default is `off` (a `202` promises a flushed commit; a stronger setting,
    /// `remote_write` or `remote_apply`, or `local` is kept), and run the prepared batch
    /// statement on its generic plan from the first batch on (the plan does not depend on the
    /// arrays' contents; planning every batch again cost about 15 % more PostgreSQL CPU per
    /// receipt, measured).
    static let sessionSetup = [
        "SELECT set_config('synchronous_commit', 'on', false) WHERE current_setting('synchronous_commit') = 'off'",
        "SET plan_cache_mode = force_generic_plan",
    ]

    /// The default number of connections per store: 2 for receipt batches (the second one only
    /// used while a batch's COMMIT is slow; see `overlapAfter`), 2 for reads and sends.
    public static let defaultConnections = 4

    /// Connects, and creates or migrates the schema (under an advisory lock; see `PostgresSchema`).
    ///
    /// - Parameters:
    ///   - url: `postgres://user[:password]@host[:port]/dbname[?libpq parameters]`, passed to libpq as is.
    ///   - connections: connections to open (2…64): 2 for reads and sends (1 when 2), the rest
    ///     store receipt batches, one batch in flight on each.
    ///   - applicationName: shown in `pg_stat_activity`.
    ///   - log: where state changes go (the database lost, back again); standard error by default.
    ///   - urlOption: the option that gave `url`, named in messages (`serve`: `--db`, `migrate`: `--to`).
    /// - Throws: `RichPushError` `configuration` for a malformed URL, `storeUnavailable` naming
    ///   host and port when the server cannot be reached or refuses the login, `store` for a
    ///   database with a newer or foreign schema.
    public init(
        url: String, connections: Int = PostgresStore.defaultConnections, applicationName: String = "richpush",
        log: @escaping @Sendable (String) -> Void = PostgresStore.logToStandardError, urlOption: String = "--db"
    ) throws {
        let info = try PostgresConnectionInfo(url: url, applicationName: applicationName)
        self.info = info
        availability = PostgresAvailability(info: info, log: log)
        let total = max(2, min(connections, 64))
        let readers = total >= 3 ? 2 : 1
        do {
            // Writers start at a random counter slot, so instances rarely share one.
            writers = try PostgresPool(
                info: info, size: total - readers, firstSlot: Int.random(in: 0..<PostgresSchema.slots), sessionSetup: Self.sessionSetup,
                availability: availability)
            try writers.run { try PostgresSchema.migrate($0) }
            pool = try PostgresPool(info: info, size: readers, sessionSetup: Self.sessionSetup, availability: availability)
        } catch let error as PostgresError {
            throw RichPushError(
                code: error.connectionLost ? .storeUnavailable : .store,
                message: error.connectionLost
                    ? "cannot connect to PostgreSQL at \(info.endpoint) (\(info.redacted)): \(error.message); \(Self.connectionAdvice(error, info: info, urlOption: urlOption))"
                    : "PostgreSQL at \(info.endpoint) refused the RichPush schema: \(error.description)",
                underlying: error
            )
        }
    }

    /// What to do when the first connection fails, naming the option the URL came from.
    ///
    /// - Parameters:
    ///   - error: libpq's failure.
    ///   - info: the parsed URL.
    ///   - urlOption: `--db` (serve) or `--to` (migrate).
    /// - Returns: the advice, for the end of the message.
    static func connectionAdvice(_ error: PostgresError, info: PostgresConnectionInfo, urlOption: String) -> String {
        let source = "the \(urlOption) URL or \(StoreLocation.environmentVariable)"
        // SQLSTATE 3D000 (invalid_catalog_name); libpq reports it at login as text only.
        if error.sqlState == "3D000" || (error.message.contains("database \"") && error.message.contains("does not exist")) {
            let name = info.database ?? info.user ?? "the database"
            return
                "the server runs, but has no database \"\(name)\": create it (createdb \(name), or CREATE DATABASE as a superuser) or name an existing one in \(source)"
        }
        return "check that the server runs and accepts connections there, and \(source) (user, password, database name, sslmode)"
    }

    /// Writes one line to standard error (the default `log`).
    public static let logToStandardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// The number of connections (writers and readers).
    public var connectionCount: Int { writers.size + pool.size }

    /// Batches stored at once: one per writer connection (see `ConcurrentBatchStore`).
    public var concurrentBatches: Int { writers.size }

    /// A second batch starts beside one in flight for 2 ms: longer than a batch takes on a
    /// quick disk (about 1 ms for 30 receipts here, WAL flush included), so quick commits keep
    /// one large batch in flight, and a slow WAL flush (2–6 ms measured on a busy disk) is
    /// overlapped with the next batch instead of idling the instance.
    public var overlapAfter: Double { 0.002 }

    // MARK: ReceiptStore

    /// The SQL of one batch: receipts in, aggregates and the summaries (`PostgresSchema` version
    /// 3) updated from the rows actually inserted, the inserted keys returned. `$1…$10` are arrays of the receipts' columns in arrival order,
    /// `$11` the writer connection's counter slot, `$12` the push ids whose `push_index` row may
    /// need adding or an earlier start (the others this instance knows are indexed already).
    static func insertSQL(extraCTE: String = "") -> String {
        """
        WITH input AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[], $9::text[], $10::bigint[])
                WITH ORDINALITY AS t(push_id, event, receipt_id, outcome, reason, elapsed_ms, media_bytes, media_type, user_agent, received_at_ms, ord)
        ), inserted AS (
            INSERT INTO receipts (push_id, event, receipt_id, outcome, reason, elapsed_ms, media_bytes, media_type, user_agent, received_at_ms)
            SELECT push_id, event, receipt_id, outcome, reason, elapsed_ms, media_bytes, media_type, user_agent, received_at_ms
            FROM input ORDER BY push_id, event, receipt_id, ord
            ON CONFLICT (push_id, event, receipt_id) DO NOTHING
            RETURNING push_id, event, receipt_id, outcome, reason, elapsed_ms, media_bytes, received_at_ms
        ), counts AS (
            INSERT INTO push_counts AS c (push_id, event, outcome, reason, receipts, media_bytes, first_ms, last_ms, slot)
            SELECT push_id, event, COALESCE(outcome, ''), COALESCE(reason, ''), count(*), COALESCE(sum(media_bytes), 0),
                   min(received_at_ms), max(received_at_ms), $11::smallint
            FROM inserted GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
            ON CONFLICT (push_id, event, outcome, reason, slot) DO UPDATE SET receipts = c.receipts + excluded.receipts,
                media_bytes = c.media_bytes + excluded.media_bytes, first_ms = LEAST(c.first_ms, excluded.first_ms),
                last_ms = GREATEST(c.last_ms, excluded.last_ms)
        ), elapsed AS (
            INSERT INTO push_elapsed AS e (push_id, elapsed_ms, receipts, slot)
            SELECT push_id, elapsed_ms, count(*), $11::smallint FROM inserted WHERE event = 'delivered' AND elapsed_ms IS NOT NULL
            GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (push_id, elapsed_ms, slot) DO UPDATE SET receipts = e.receipts + excluded.receipts
        ), starts AS (
            SELECT push_id, min(received_at_ms) AS started FROM inserted WHERE push_id = ANY($12::text[]) GROUP BY push_id
        ), new_pushes AS (
            INSERT INTO push_index (push_id, started_ms)
            SELECT push_id, started FROM starts ORDER BY push_id
            ON CONFLICT (push_id) DO NOTHING
            RETURNING push_id
        ), earlier AS (
            UPDATE push_index AS x SET started_ms = s.started FROM starts AS s
            WHERE x.push_id = ANY($12::text[]) AND x.push_id = s.push_id AND x.started_ms > s.started
        ), batch_totals AS (
            INSERT INTO totals AS t (slot, receipts, delivered, opened, media_attached, with_outcome, with_reason, pushes, first_receipt_ms, last_receipt_ms)
            SELECT $11::smallint, count(*), count(*) FILTER (WHERE event = 'delivered'), count(*) FILTER (WHERE event = 'opened'),
                   count(*) FILTER (WHERE event = 'delivered' AND outcome = 'media_attached'),
                   count(*) FILTER (WHERE event = 'delivered' AND outcome IS NOT NULL),
                   count(*) FILTER (WHERE event = 'delivered' AND reason IS NOT NULL),
                   (SELECT count(*) FROM new_pushes), min(received_at_ms), max(received_at_ms)
            FROM inserted HAVING count(*) > 0
            ON CONFLICT (slot) DO UPDATE SET receipts = t.receipts + excluded.receipts, delivered = t.delivered + excluded.delivered,
                opened = t.opened + excluded.opened, media_attached = t.media_attached + excluded.media_attached,
                with_outcome = t.with_outcome + excluded.with_outcome, with_reason = t.with_reason + excluded.with_reason,
                pushes = t.pushes + excluded.pushes,
                first_receipt_ms = LEAST(t.first_receipt_ms, excluded.first_receipt_ms),
                last_receipt_ms = GREATEST(t.last_receipt_ms, excluded.last_receipt_ms)
        ), batch_reasons AS (
            INSERT INTO reason_totals AS r (reason, slot, receipts)
            SELECT reason, $11::smallint, count(*) FROM inserted WHERE event = 'delivered' AND reason IS NOT NULL
            GROUP BY 1 ORDER BY 1
            ON CONFLICT (reason, slot) DO UPDATE SET receipts = r.receipts + excluded.receipts
        ), batch_elapsed AS (
            INSERT INTO elapsed_totals AS q (elapsed_ms, slot, receipts)
            SELECT \(ElapsedQuantizer.sql), $11::smallint, count(*) FROM inserted WHERE event = 'delivered' AND elapsed_ms IS NOT NULL
            GROUP BY 1 ORDER BY 1
            ON CONFLICT (elapsed_ms, slot) DO UPDATE SET receipts = q.receipts + excluded.receipts
        ), batch_timeline AS (
            INSERT INTO timeline AS l (width_ms, bucket_ms, slot, delivered, opened)
            SELECT w.width, i.received_at_ms / w.width * w.width, $11::smallint,
                   count(*) FILTER (WHERE i.event = 'delivered'), count(*) FILTER (WHERE i.event = 'opened')
            FROM inserted AS i CROSS JOIN (VALUES (1000::bigint), (60000::bigint), (3600000::bigint), (86400000::bigint)) AS w(width)
            WHERE i.event IN ('delivered', 'opened')
            GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (width_ms, bucket_ms, slot) DO UPDATE SET delivered = l.delivered + excluded.delivered, opened = l.opened + excluded.opened
        )\(extraCTE)
        SELECT push_id, event, receipt_id FROM inserted WHERE receipt_id IS NOT NULL
        """
    }

    private static let batchSQL = insertSQL()

    /// The ten array parameters of `insertSQL` for a batch, the slot, and the push ids to index.
    static func receiptParameters(_ receipts: [StoredReceipt], slot: Int, index: [String]) -> [String?] {
        var columns = (0..<10).map { _ in PostgresArrayLiteral(reservingCapacity: receipts.count * 16) }
        for stored in receipts {
            let r = stored.receipt
            columns[0].append(r.pushID)
            columns[1].append(r.event.rawValue)
            columns[2].append(r.receiptID)
            columns[3].append(r.outcome?.rawValue)
            columns[4].append(r.reason?.rawValue)
            columns[5].append(r.elapsedMs)
            columns[6].append(r.mediaBytes)
            columns[7].append(r.mediaType)
            columns[8].append(stored.userAgent)
            columns[9].append(stored.receivedAtMs)
        }
        return columns.map(\.literal) + [String(slot), PostgresArrayLiteral.text(index)]
    }

    /// Which receipts were new, in order, from the keys the INSERT returned: a receipt without
    /// `receipt_id` always is; of equal keys only the first arrival can be (the SQL inserts them
    /// in arrival order).
    static func newFlags(_ receipts: [StoredReceipt], returned result: PostgresResult) -> [Bool] {
        struct Key: Hashable {
            let pushID: String, event: String, receiptID: String
        }
        var inserted = Set<Key>(minimumCapacity: result.count)
        for row in 0..<result.count {
            inserted.insert(Key(pushID: result.text(row, 0) ?? "", event: result.text(row, 1) ?? "", receiptID: result.text(row, 2) ?? ""))
        }
        return receipts.map { stored in
            guard let id = stored.receipt.receiptID else { return true }
            return inserted.remove(Key(pushID: stored.receipt.pushID, event: stored.receipt.event.rawValue, receiptID: id)) != nil
        }
    }

    /// Stores a batch in one transaction and returns after its COMMIT (see the type's discussion
    /// and `ReceiptStore.insert(_:)`).
    public func insert(_ receipts: [StoredReceipt]) throws -> [Bool] {
        guard !receipts.isEmpty else { return [] }
        var starts: [String: Int] = [:]
        for stored in receipts { starts[stored.receipt.pushID] = min(starts[stored.receipt.pushID] ?? stored.receivedAtMs, stored.receivedAtMs) }
        let index = knownLock.withLock { starts.filter { entry in knownPushes[entry.key].map { entry.value < $0 } ?? true } }
        let result = try write { try $0.execute(Self.batchSQL, Self.receiptParameters(receipts, slot: $0.slot, index: index.keys.sorted()), prepare: true) }
        knownLock.withLock {
            if knownPushes.count + index.count > Self.knownPushesLimit { knownPushes.removeAll(keepingCapacity: true) }
            for (pushID, started) in index { knownPushes[pushID] = min(started, knownPushes[pushID] ?? started) }
        }
        pruneTimeline(newestMs: receipts.map(\.receivedAtMs).max() ?? 0)
        return Self.newFlags(receipts, returned: result)
    }

    /// Once an hour per instance, drops per-second timeline rows older than 48 h (after the
    /// batch, in a transaction of its own; a failure only leaves them for the next hour).
    private func pruneTimeline(newestMs: Int) {
        let hour = newestMs / 3_600_000
        let due = stateLock.withLock {
            guard hour != prunedHour else { return false }
            prunedHour = hour
            return true
        }
        guard due else { return }
        _ = try? write {
            try $0.execute("DELETE FROM timeline WHERE width_ms = 1000 AND bucket_ms < $1::bigint", [String(newestMs - TimelinePlan.secondsRetentionMs)])
        }
    }

    /// Copies a batch read from a SQLite store (`richpush migrate`): stored exactly as `insert(_:)`
    /// stores receipts, and in the same transaction the migration's progress for `source` moves to
    /// `lastRowID`, so a re-run resumes after it and copies nothing twice.
    ///
    /// - Returns: how many receipts were new.
    func insertMigrated(_ receipts: [StoredReceipt], source: String, lastRowID: Int) throws -> Int {
        let sql = Self.insertSQL(
            extraCTE: """
                , progress AS (
                    INSERT INTO richpush_migrations AS m (source, item, last_rowid) VALUES ($13, 'receipts', $14)
                    ON CONFLICT (source, item) DO UPDATE SET last_rowid = GREATEST(m.last_rowid, excluded.last_rowid), updated_at = now()
                )
                """)
        let pushIDs = Set(receipts.map(\.receipt.pushID)).sorted()
        let result = try write {
            try $0.execute(sql, Self.receiptParameters(receipts, slot: $0.slot, index: pushIDs) + [source, String(lastRowID)], prepare: true)
        }
        return Self.newFlags(receipts, returned: result).filter { $0 }.count
    }

    /// Records one batch of sends (see `ReceiptStore.recordSend(_:)`) in one statement: the
    /// batch row (whose key makes the batch count once: a second instance recording it at the
    /// same moment waits for the first and then records nothing), the push's counts, each
    /// token's outcome (the last result per token when a token repeats) and the device-token
    /// states (marked when the provider judged the token; cleared by a later acceptance), as
    /// SQLite does in order.
    @discardableResult
    public func recordSend(_ send: PushSendRecord) throws -> SendRecording {
        try pooled { try Self.recordSend(send, on: $0) }
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

    // MARK: DeviceStore

    /// Upserts the registration (see `DeviceStore.registerDevice(_:)`).
    public func registerDevice(_ registration: DeviceRegistration) throws -> Bool {
        try pooled { db in
            try db.execute(
                """
                INSERT INTO devices AS d (device_token, provider, platform, user_id, app_version, registered_at_ms) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (device_token) DO UPDATE SET provider = excluded.provider, platform = excluded.platform,
                    user_id = excluded.user_id, app_version = excluded.app_version, registered_at_ms = excluded.registered_at_ms
                RETURNING (xmax = 0)
                """,
                [
                    registration.token, registration.provider, registration.platform, registration.userID, registration.appVersion,
                    String(registration.registeredAtMs),
                ]
            ).text(0, 0) == "t"
        }
    }

    /// Deletes the registration and marks the token `deleted` (see `DeviceStore.unregisterDevice(_:atMs:)`).
    public func unregisterDevice(_ token: String, atMs: Int) throws -> Bool {
        try pooled { db in
            try db.execute(
                """
                WITH gone AS (
                    DELETE FROM devices WHERE device_token = $1 RETURNING 1
                ), marked AS (
                    INSERT INTO device_tokens AS d (device_token, state, reason, since_ms, updated_at_ms)
                    VALUES ($1, 'deleted', 'deleted by the app', $2, $2)
                    ON CONFLICT (device_token) DO UPDATE SET state = excluded.state, reason = excluded.reason,
                        since_ms = excluded.since_ms, updated_at_ms = excluded.updated_at_ms
                )
                SELECT count(*) FROM gone
                """,
                [token, String(atMs)]
            ).int(0, 0) == 1
        }
    }

    /// The users' registrations, by user id (bytes) then newest first, as SQLite orders them
    /// (see `DeviceStore.devices(ofUsers:limit:)`).
    public func devices(ofUsers userIDs: [String], limit: Int) throws -> [DeviceRegistration] {
        guard !userIDs.isEmpty, limit > 0 else { return [] }
        return try pooled(readOnly: true) { db in
            let result = try db.execute(
                """
                SELECT device_token, provider, platform, user_id, app_version, registered_at_ms FROM devices
                WHERE user_id = ANY($1::text[]) ORDER BY user_id COLLATE "C", registered_at_ms DESC, device_token COLLATE "C" LIMIT $2
                """,
                [PostgresArrayLiteral.text(Array(Set(userIDs)).sorted()), String(limit)])
            return result.rows { Self.registration(result, $0) }
        }
    }

    /// One registration (see `DeviceStore.device(_:)`).
    public func device(_ token: String) throws -> DeviceRegistration? {
        try pooled(readOnly: true) { db in
            let result = try db.execute(
                "SELECT device_token, provider, platform, user_id, app_version, registered_at_ms FROM devices WHERE device_token = $1", [token])
            return result.count > 0 ? Self.registration(result, 0) : nil
        }
    }

    private static func registration(_ result: PostgresResult, _ row: Int) -> DeviceRegistration {
        DeviceRegistration(
            token: result.text(row, 0) ?? "", provider: result.text(row, 1) ?? "", platform: result.text(row, 2) ?? "", userID: result.text(row, 3),
            appVersion: result.text(row, 4), registeredAtMs: result.int(row, 5) ?? 0)
    }

    /// Tokens marked inactive, bad or deleted and not registered since (see
    /// `DeviceStore.skippedTokens(among:)`).
    public func skippedTokens(among tokens: [String]) throws -> [String: TokenSkip] {
        guard !tokens.isEmpty else { return [:] }
        return try pooled(readOnly: true) { db in
            let result = try db.execute(
                """
                SELECT t.device_token, t.state, t.reason, COALESCE(t.since_ms, t.updated_at_ms), d.registered_at_ms
                FROM device_tokens t LEFT JOIN devices d ON d.device_token = t.device_token
                WHERE t.device_token = ANY($1::text[])
                """,
                [PostgresArrayLiteral.text(Array(Set(tokens)).sorted())])
            var out: [String: TokenSkip] = [:]
            for row in 0..<result.count {
                let since = result.int(row, 3) ?? 0
                // Registered again after the provider's verdict (Apple: "unless it registered again later").
                if let registered = result.int(row, 4), registered > since { continue }
                out[result.text(row, 0) ?? ""] = TokenSkip(
                    state: PushSendRecord.TokenState(rawValue: result.text(row, 1) ?? ""), reason: result.text(row, 2), sinceMs: since)
            }
            return out
        }
    }

    /// Disconnects every connection. Further calls fail.
    public func close() throws {
        let first = stateLock.withLock {
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        pool.close()
        writers.close()
    }

    private func ensureOpen() throws {
        if stateLock.withLock({ closed }) {
            throw RichPushError(code: .store, message: "the PostgreSQL store \(info.redacted) is closed")
        }
    }

    /// Runs a write on a writer connection (reconnected first when it was lost; see
    /// `PostgresAvailability.run`), again up to 3 times after a deadlock or serialization failure
    /// (the server rolled it back, so nothing is counted twice).
    func write<T>(_ work: (PostgresConnection) throws -> T) throws -> T {
        try ensureOpen()
        return try retrying { try writers.run(work) }
    }

    /// Runs work on a pool connection, with the same retries as `write`; `readOnly` work is also
    /// run once more when its connection was lost (a read is safe to repeat).
    private func pooled<T>(readOnly: Bool = false, _ work: (PostgresConnection) throws -> T) throws -> T {
        try ensureOpen()
        return try retrying(repeatAfterLostConnection: readOnly) { try pool.run(work) }
    }

    private func retrying<T>(repeatAfterLostConnection: Bool = false, _ attempt: () throws -> T) throws -> T {
        var retries = 0
        var repeated = false
        while true {
            do {
                return try attempt()
            } catch let error as PostgresError {
                if error.isRetryable && retries < 3 {
                    retries += 1
                    continue
                }
                if error.connectionLost && repeatAfterLostConnection && !repeated && availability.unavailableSince == nil {
                    repeated = true
                    continue
                }
                throw publicError(error)
            }
        }
    }

    /// The error callers see: no host, port or URL (a `503` body goes to anonymous clients; the
    /// log has the details).
    private func publicError(_ error: PostgresError) -> RichPushError {
        if error.connectionLost {
            return RichPushError(code: .storeUnavailable, message: "the PostgreSQL database is unreachable; reconnecting", underlying: error)
        }
        return RichPushError(code: .store, message: "PostgreSQL: \(error.description)", underlying: error)
    }

    // MARK: Health

    /// Unavailable while the database is known to be down; otherwise a `SELECT 1` at most once a
    /// second (only when nothing else reached the database in that second), which is also what
    /// reconnects an idle instance.
    public func health() -> StoreHealth {
        if stateLock.withLock({ closed }) { return StoreHealth(isAvailable: false, reason: "the store is closed") }
        if Date().timeIntervalSince(availability.lastSuccess) >= 1,
            availability.unavailableSince.map({ Date().timeIntervalSince($0) >= availability.retryInterval }) ?? true,
            probeLock.try()
        {
            defer { probeLock.unlock() }
            // Twice: a first probe on a connection the server dropped meanwhile fails after
            // reconnecting it; the second then tells whether the database answers.
            for _ in 0..<2 {
                if (try? pool.runIfIdle({ try $0.execute("SELECT 1") })) != nil { break }
            }
        }
        guard let since = availability.unavailableSince else { return .available }
        return StoreHealth(
            isAvailable: false,
            reason:
                "database unreachable since \(SQLiteStore.iso8601(Int(since.timeIntervalSince1970 * 1000))); receipts get 503 until it is back (reconnecting)"
        )
    }

    // MARK: StatisticsStore

    /// Runs reads in one `REPEATABLE READ READ ONLY` transaction (one snapshot) on a pool connection.
    private func read<T>(_ work: (PostgresConnection) throws -> T) throws -> T {
        try pooled(readOnly: true) { connection in
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do {
                let value = try work(connection)
                try connection.execute("COMMIT")
                return value
            } catch {
                if connection.isConnected { _ = try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// One page of pushes in one snapshot (see `StatisticsStore.pushes(_:)`): the same keyset
    /// query as `SQLiteStore` on `push_index` (push ids in byte order, `COLLATE "C"`).
    public func pushes(_ query: PushQuery) throws -> PushPage {
        try read { try Self.readPage($0, query) }
    }

    /// One push's figures (see `StatisticsStore.push(_:)`).
    public func push(_ pushID: String) throws -> PushStatistics? {
        try read { try Self.readPushes($0, [pushID])[pushID]?.statistics }
    }

    /// The per-push page's data (see `StatisticsStore.pushDetail(_:)`).
    public func pushDetail(_ pushID: String) throws -> PushDetail? {
        try read { db in
            guard let row = try Self.readPushes(db, [pushID])[pushID] else { return nil }
            let outcomes = try db.execute(
                "SELECT COALESCE(outcome, '') AS o, count(*) FROM push_tokens WHERE push_id = $1 GROUP BY 1 ORDER BY 2 DESC, COALESCE(outcome, '') COLLATE \"C\"",
                [pushID])
            return row.detail(
                tokenOutcomes: outcomes.rows { (outcome: outcomes.text($0, 0).flatMap { $0.isEmpty ? nil : $0 } ?? "unknown", count: outcomes.int($0, 1) ?? 0) }
            )
        }
    }

    /// What APNs last said about a device token (`device_tokens`), `nil` when nothing is recorded
    /// (never sent, or accepted since); as `SQLiteStore.deviceTokenState(_:)`.
    ///
    /// - Parameter deviceToken: the hex token as it was sent.
    /// - Returns: the state (`inactive` or `bad`), APNs' reason, and for 410 since when (ms since 1970).
    /// - Throws: `RichPushError` `store` / `storeUnavailable`.
    public func deviceTokenState(_ deviceToken: String) throws -> (state: PushSendRecord.TokenState, reason: String?, sinceMs: Int?)? {
        try pooled(readOnly: true) { db in
            let result = try db.execute("SELECT state, reason, since_ms FROM device_tokens WHERE device_token = $1", [deviceToken])
            guard result.count > 0 else { return nil }
            return (state: PushSendRecord.TokenState(rawValue: result.text(0, 0) ?? ""), reason: result.text(0, 1), sinceMs: result.int(0, 2))
        }
    }

    /// The dashboard snapshot from the summaries in one snapshot (see `StatisticsStore.dashboard(_:)`);
    /// the arithmetic is `DashboardTotals`', shared with `SQLiteStore`. The display rate's numerator
    /// (delivered receipts of pushes with a send) is summed over the pushes sent through the
    /// server, which only the admin creates; everything else reads summaries of bounded size.
    public func dashboard(_ query: DashboardQuery) throws -> DashboardSnapshot {
        try read { db in
            let t = try db.execute(
                """
                SELECT COALESCE(SUM(receipts), 0), COALESCE(SUM(delivered), 0), COALESCE(SUM(opened), 0), COALESCE(SUM(media_attached), 0),
                       COALESCE(SUM(with_outcome), 0), COALESCE(SUM(with_reason), 0), COALESCE(SUM(sent), 0), COALESCE(SUM(accepted), 0),
                       COALESCE(SUM(pushes), 0), MIN(first_receipt_ms), MAX(last_receipt_ms)
                FROM totals
                """)
            let deliveredOfSent =
                try db.execute(
                    "SELECT COALESCE(SUM(c.receipts), 0) FROM pushes p JOIN push_counts c ON c.push_id = p.push_id WHERE c.event = 'delivered'"
                ).int(0, 0) ?? 0
            let totals = DashboardTotals(
                receipts: t.int(0, 0) ?? 0, delivered: t.int(0, 1) ?? 0, opened: t.int(0, 2) ?? 0, mediaAttached: t.int(0, 3) ?? 0,
                withOutcome: t.int(0, 4) ?? 0, withReason: t.int(0, 5) ?? 0, sent: t.int(0, 6) ?? 0, accepted: t.int(0, 7) ?? 0,
                deliveredOfSentPushes: deliveredOfSent, pushes: t.int(0, 8) ?? 0, firstReceiptMs: t.int(0, 9), lastReceiptMs: t.int(0, 10))
            var timeline: (plan: TimelinePlan, rows: [(bucketMs: Int, delivered: Int, opened: Int)])?
            if let (plan, to) = totals.timelinePlan(query) {
                let rows = try db.execute(
                    """
                    SELECT bucket_ms, SUM(delivered), SUM(opened) FROM timeline
                    WHERE width_ms = $1::bigint AND bucket_ms >= $2::bigint AND bucket_ms <= $3::bigint GROUP BY bucket_ms ORDER BY bucket_ms
                    """,
                    [String(plan.sourceWidthMs), String(plan.originMs), String(to)])
                timeline = (plan, rows.rows { (bucketMs: rows.int($0, 0) ?? 0, delivered: rows.int($0, 1) ?? 0, opened: rows.int($0, 2) ?? 0) })
            }
            let reasonRows = try db.execute(
                "SELECT reason, SUM(receipts) FROM reason_totals GROUP BY reason ORDER BY 2 DESC, reason COLLATE \"C\" LIMIT 9")
            let reasons = reasonRows.rows { (reason: reasonRows.text($0, 0) ?? "", count: reasonRows.int($0, 1) ?? 0) }
            let distributionRows = try db.execute("SELECT elapsed_ms, SUM(receipts) FROM elapsed_totals GROUP BY elapsed_ms ORDER BY elapsed_ms")
            let distribution = distributionRows.rows { (value: distributionRows.int($0, 0) ?? 0, count: distributionRows.int($0, 1) ?? 0) }
            let newest = try Self.readPage(db, PushQuery(limit: 12))
            return totals.snapshot(timeline: timeline, reasons: reasons, distribution: distribution, pushes: newest.pushes)
        }
    }

    // MARK: Reads

    /// A page of push ids from `push_index` (an index range scan of `limit` + 1 rows, planned by
    /// `PushPagePlan` as for `SQLiteStore`), then the figures of those pushes.
    private static func readPage(_ db: PostgresConnection, _ query: PushQuery) throws -> PushPage {
        let plan = PushPagePlan(query)
        var conditions: [String] = []
        var values: [String?] = []
        func parameter(_ value: String, _ type: String) -> String {
            values.append(value)
            return "$\(values.count)::\(type)"
        }
        if let range = plan.prefixRange {
            conditions.append("push_id >= \(parameter(range.lower, "text")) AND push_id < \(parameter(range.upper, "text"))")
        }
        if let id = plan.idAfter { conditions.append("push_id > \(parameter(id, "text"))") }
        if let id = plan.idBefore { conditions.append("push_id < \(parameter(id, "text"))") }
        for (bound, range, row) in [(plan.lower, ">=", ">"), (plan.upper, "<", "<")] {
            switch bound {
            case .range(let ms)?:
                conditions.append("started_ms \(range) \(parameter(String(ms), "bigint"))")
            case .cursor(let ms, let id)?:
                conditions.append("(started_ms, push_id) \(row) (\(parameter(String(ms), "bigint")), \(parameter(id, "text")))")
            case nil:
                break
            }
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let limit = parameter(String(plan.fetchLimit), "bigint")
        let result = try db.execute("SELECT push_id, started_ms FROM push_index\(filter) ORDER BY \(plan.order) LIMIT \(limit)", values)
        let page = plan.page(result.rows { (id: result.text($0, 0) ?? "", started: result.int($0, 1) ?? 0) })
        let figures = try readPushes(db, page.ids)
        return PushPage(pushes: page.ids.compactMap { figures[$0]?.statistics }, next: page.next, previous: page.previous)
    }

    /// The figures of some pushes from their `push_counts`, `pushes` and `push_elapsed` rows
    /// (three queries on keys led by `push_id`, slots summed; the arithmetic is `PushRow`'s, as
    /// for `SQLiteStore`); pushes with no rows are left out.
    private static func readPushes(_ db: PostgresConnection, _ ids: [String]) throws -> [String: PushRow] {
        guard !ids.isEmpty else { return [:] }
        let list = PostgresArrayLiteral.text(ids)
        var counts: [String: PushRow.Counts] = [:]
        let countRows = try db.execute(
            """
            SELECT push_id, event, outcome, reason, SUM(receipts), SUM(media_bytes), MIN(first_ms), MAX(last_ms) FROM push_counts
            WHERE push_id = ANY($1::text[]) GROUP BY push_id, event, outcome, reason
            """, [list])
        for i in 0..<countRows.count {
            counts[countRows.text(i, 0) ?? "", default: PushRow.Counts()].add(
                event: countRows.text(i, 1) ?? "", outcome: countRows.text(i, 2) ?? "", reason: countRows.text(i, 3) ?? "",
                receipts: countRows.int(i, 4) ?? 0, mediaBytes: countRows.int(i, 5) ?? 0, firstMs: countRows.int(i, 6) ?? 0,
                lastMs: countRows.int(i, 7) ?? 0)
        }
        let sendRows = try db.execute(
            "SELECT push_id, sent, accepted, first_sent_at_ms, last_sent_at_ms, title, skipped FROM pushes WHERE push_id = ANY($1::text[])", [list])
        var sends: [String: PushRow.Send] = [:]
        for i in 0..<sendRows.count {
            sends[sendRows.text(i, 0) ?? ""] = PushRow.Send(
                sent: sendRows.int(i, 1), accepted: sendRows.int(i, 2), firstSentMs: sendRows.int(i, 3), lastSentMs: sendRows.int(i, 4),
                title: sendRows.text(i, 5), skipped: sendRows.int(i, 6))
        }
        var sources: [String: [String]] = [:]
        if !sends.isEmpty {
            let batches = try db.execute(
                "SELECT DISTINCT push_id, source COLLATE \"C\" FROM push_send_batches WHERE push_id = ANY($1::text[]) ORDER BY 1, 2",
                [PostgresArrayLiteral.text(sends.keys.sorted())])
            for i in 0..<batches.count { sources[batches.text(i, 0) ?? "", default: []].append(batches.text(i, 1) ?? "") }
        }
        let elapsed = try db.execute(
            "SELECT push_id, elapsed_ms, SUM(receipts) FROM push_elapsed WHERE push_id = ANY($1::text[]) GROUP BY push_id, elapsed_ms ORDER BY push_id, elapsed_ms",
            [list])
        var distributions: [String: [(value: Int, count: Int)]] = [:]
        for i in 0..<elapsed.count {
            distributions[elapsed.text(i, 0) ?? "", default: []].append((value: elapsed.int(i, 1) ?? 0, count: elapsed.int(i, 2) ?? 0))
        }
        var out: [String: PushRow] = [:]
        for id in ids {
            out[id] = PushRow(pushID: id, counts: counts[id], send: sends[id], sources: sources[id] ?? [], distribution: distributions[id] ?? [])
        }
        return out
    }
}
