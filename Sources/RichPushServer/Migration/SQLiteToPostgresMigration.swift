import Foundation
import RichPushCore

/// Copies a SQLite store into a PostgreSQL store (`richpush migrate`): receipts, pushes, send
/// records (`push_tokens`), device-token states (`device_tokens`), from schema version 3 the
/// recorded batches of sends (`push_send_batches`) and the devices the apps registered
/// (`devices`), from version 6 the media edge's records and files (`push_media`, `media_objects`),
/// from 7 device tags and campaigns (`+Campaigns`), from 8 the webhook outbox and from 9 the
/// admitted codes (`+Webhooks`).
///
/// - Same figures after the copy: receipts go through the PostgreSQL store's own insert (dedup
///   on `push_id`, `event`, `receipt_id`; `push_counts` and `push_elapsed` from the rows actually
///   inserted), so they merge into a database that already holds receipts, and `GET /v1/pushes`
///   answers as the SQLite store did.
///   The dashboard's summaries (`PostgresSchema` v4) are kept in the same statements: receipts
///   through the insert, pushes add to `push_index` and their `sent`/`accepted` to `totals`.
/// - Safe to re-run: every chunk (default 5,000 rows) commits together with how far it got
///   (`richpush_migrations`: source file, table, last rowid), so a second run, or a run after an
///   interrupted one, copies only what was not copied yet: nothing is counted twice, not even
///   receipts without a `receipt_id` or the `sent`/`accepted` counters. The source is the
///   file's absolute path. Send records and token states are also upserted only when newer.
/// - The source is read in one read transaction (a consistent snapshot; a server still writing
///   to it is not blocked), opened read-only, never changed. Schema versions 1 to 9 are read (not
///   copied: idempotency keys, v5); a push before v3 gets one batch `before-v3` from `apns`.
/// - The server's rules on the way in (`MigrationRowCheck`): a row `richpush serve` would have
///   refused (a push id with a bidirectional control, an unknown event, a negative number, an id
///   with a NUL byte, a 5 MB push id, a count that would overflow a sum) is not copied; it is
///   reported by table and rowid in `TableSummary.skipped`, and the watermark moves past it, so a
///   re-run neither stops at it nor reports it again.
public final class SQLiteToPostgresMigration {
    /// A source row that breaks the server's rules: not copied.
    public struct SkippedRow: Sendable, Equatable {
        /// The table, as in `Progress`.
        public var table: String
        /// The row's SQLite rowid.
        public var rowid: Int
        /// Which rule it breaks.
        public var problem: String
    }

    /// One step of progress: `done` of `total` rows of `table` copied in this run.
    public struct Progress: Sendable, Equatable {
        /// The table, as `TableSummary.table` names it (`receipts`, `pushes`, …).
        public var table: String
        /// Rows copied so far in this run.
        public var done: Int
        /// Rows this run has to copy (those not copied by an earlier run).
        public var total: Int
    }

    /// What one table's copy did.
    public struct TableSummary: Sendable, Equatable {
        /// The table, as in `Progress`.
        public var table: String
        /// Rows in the source in all.
        public var sourceRows: Int
        /// Rows copied by earlier runs (skipped).
        public var copiedBefore: Int
        /// Rows read and written by this run.
        public var copied: Int
        /// Of `copied`, receipts that were new to PostgreSQL (the rest were already there: same
        /// key); for the other tables rows that were inserted rather than merged into a row there.
        public var new: Int
        /// Rows of this run that break the server's rules, skipped (counted in `copied`: read and
        /// passed, never written).
        public var skipped: [SkippedRow] = []
    }

    /// The source file.
    public let sqlitePath: String
    /// The target store.
    public let target: PostgresStore
    let source: SQLiteConnection
    let sourceKey: String
    let sourceVersion: Int
    /// Rows per transaction.
    public let chunkSize: Int

    /// Opens both stores (creating or migrating the PostgreSQL schema).
    ///
    /// - Parameters:
    ///   - sqlitePath: the SQLite file `richpush serve` used.
    ///   - postgresURL: the target, `postgres://…` (libpq parameters allowed).
    ///   - chunkSize: rows per transaction (100…50,000; default 5,000).
    ///   - names: what the program calls its settings, for messages.
    /// - Throws: `RichPushError` `io` when the file does not exist, `store` when it is not a
    ///   RichPush SQLite database or is newer than this richpush (both with `setting`
    ///   `migration source` and the file's `path`), and the PostgreSQL store's errors
    ///   (`configuration`, `storeUnavailable` naming host and port, `store`).
    public init(sqlitePath: String, postgresURL: String, chunkSize: Int = 5_000, names: StoreSettingNames = .descriptive) throws {
        let source = StoreSettingNames.Setting.migrationSource
        let serveUsed = "the file richpush serve used (its \(names.database), default ./richpush.sqlite)"
        guard FileManager.default.fileExists(atPath: sqlitePath) else {
            throw RichPushError(
                code: .io, message: "no SQLite database at '\(sqlitePath)' (\(names.migrationSource)); give \(serveUsed)",
                setting: source.rawValue, path: sqlitePath)
        }
        let absolute = URL(fileURLWithPath: sqlitePath).standardizedFileURL.resolvingSymlinksInPath().path
        self.sqlitePath = sqlitePath
        self.chunkSize = max(100, min(chunkSize, 50_000))
        sourceKey = "sqlite:" + absolute
        self.source = try SQLiteConnection(
            path: sqlitePath, readOnly: true, notADatabaseHint: "give \(names.migrationSource) \(serveUsed)", setting: source)
        let version = try self.source.prepared("PRAGMA user_version").rows { $0.int(0) ?? 0 }.first ?? 0
        let tables = Set(try self.source.prepared("SELECT name FROM sqlite_master WHERE type = 'table'").rows { $0.text(0) ?? "" })
        guard (1...SQLiteStore.schemaVersion).contains(version), tables.isSuperset(of: ["receipts", "pushes", "push_tokens"]) else {
            if version > SQLiteStore.schemaVersion {
                throw RichPushError(
                    code: .store,
                    message: "'\(sqlitePath)' has schema version \(version), newer than this richpush (\(SQLiteStore.schemaVersion)); upgrade richpush",
                    setting: source.rawValue, path: sqlitePath)
            }
            throw RichPushError(
                code: .store,
                message:
                    "'\(sqlitePath)' is not a RichPush SQLite database (no RichPush tables); give the file richpush serve used (\(names.migrationSource) sqlite:PATH)",
                setting: source.rawValue, path: sqlitePath)
        }
        sourceVersion = version
        target = try PostgresStore(url: postgresURL, connections: 2, applicationName: "richpush migrate", names: names, setting: .migrationTarget)
    }

    /// Copies what earlier runs did not, table by table.
    ///
    /// - Parameters:
    ///   - stopAfterChunks: stop after this many chunks (tests: an interrupted run); `nil` = all.
    ///   - progress: called after each chunk.
    /// - Returns: one summary per table (receipts, pushes, send records, token states, send
    ///   batches, devices, device tags, campaign targets, campaign chunks, campaigns, webhook
    ///   events, webhook endpoints, admitted codes, media records, media files).
    /// - Throws: `RichPushError` from either store; what was committed before stays (re-run to go on).
    public func run(stopAfterChunks: Int? = nil, progress: (Progress) -> Void = { _ in }) throws -> [TableSummary] {
        try source.execute("BEGIN")
        defer { try? source.execute("COMMIT") }
        var budget = stopAfterChunks ?? Int.max
        var out: [TableSummary] = []
        out.append(try copy(table: "receipts", item: "receipts", budget: &budget, progress: progress, write: copyReceipts))
        out.append(try copy(table: "pushes", item: "pushes", budget: &budget, progress: progress, write: copyPushes))
        out.append(try copy(table: "send records", item: "push_tokens", budget: &budget, progress: progress, write: copySendRecords))
        if sourceVersion >= 2 {
            out.append(try copy(table: "token states", item: "device_tokens", budget: &budget, progress: progress, write: copyTokenStates))
        } else {
            out.append(TableSummary(table: "token states", sourceRows: 0, copiedBefore: 0, copied: 0, new: 0))
        }
        if sourceVersion >= 3 {
            out.append(try copy(table: "send batches", item: "push_send_batches", budget: &budget, progress: progress, write: copySendBatches))
            out.append(try copy(table: "devices", item: "devices", budget: &budget, progress: progress, write: copyDevices))
        } else {
            out.append(TableSummary(table: "send batches", sourceRows: 0, copiedBefore: 0, copied: 0, new: 0))
            out.append(TableSummary(table: "devices", sourceRows: 0, copiedBefore: 0, copied: 0, new: 0))
        }
        out += try copyCampaigns(budget: &budget, progress: progress) + copyWebhooksAndCodes(budget: &budget, progress: progress)
        return out + (try copyMedia(budget: &budget, progress: progress))
    }

    /// Closes the target store.
    public func close() throws { try target.close() }

    /// Copies one table in chunks after its watermark; `write` stores a chunk (rowids after
    /// `after`, at most `chunkSize`) with the new watermark and returns (rows read, new, last rowid).
    func copy(
        table: String, item: String, budget: inout Int, progress: (Progress) -> Void,
        write: (_ after: Int) throws -> Chunk
    ) throws -> TableSummary {
        let watermark =
            try target.write {
                try $0.execute("SELECT last_rowid FROM richpush_migrations WHERE source = $1 AND item = $2", [sourceKey, item])
            }.int(0, 0) ?? 0
        let count = try source.prepared("SELECT count(*), COALESCE(SUM(rowid > ?), 0) FROM \(item)")
        try count.bind([.integer(watermark)])
        let (all, remaining) = try count.rows { ($0.int(0) ?? 0, $0.int(1) ?? 0) }.first ?? (0, 0)
        var summary = TableSummary(table: table, sourceRows: all, copiedBefore: all - remaining, copied: 0, new: 0)
        progress(Progress(table: table, done: 0, total: remaining))
        var after = watermark
        while summary.copied < remaining && budget > 0 {
            let chunk = try write(after)
            if chunk.read == 0 { break }
            budget -= 1
            summary.copied += chunk.read
            summary.new += chunk.new
            summary.skipped += chunk.skipped.map { SkippedRow(table: table, rowid: $0.rowid, problem: $0.problem) }
            after = chunk.last
            progress(Progress(table: table, done: summary.copied, total: remaining))
        }
        return summary
    }

    /// What one chunk did: rows read, of them new in the target, the last rowid read, and the
    /// rows skipped (rowid, problem).
    struct Chunk {
        var read: Int
        var new: Int
        var last: Int
        var skipped: [(rowid: Int, problem: String)] = []

        /// The chunk once its rows are written, `new` of them new in the target.
        func written(new: Int) -> Chunk { Chunk(read: read, new: new, last: last, skipped: skipped) }
    }

    /// Reads one chunk of `item` with `query` (rowid first; bound here to rowids after `after`, at
    /// most `limit` rows, default `chunkSize`) and checks each row with `problem` (why it breaks
    /// the server's rules, `nil` when it passes): a row that breaks them is reported in the chunk,
    /// not copied. The caller writes the rows that pass with the watermark `chunk.last` in one
    /// transaction; when none passes, the watermark is moved here alone and `rows` is empty.
    ///
    /// - Returns: the rows to write, and the chunk (`new` still 0: see `Chunk.written(new:)`).
    func readChunk<Row>(
        _ query: SQLiteStatement, item: String, after: Int, limit: Int? = nil, problem: (SQLiteStatement) -> String?,
        row: (SQLiteStatement, _ rowid: Int) -> Row
    ) throws -> (rows: [Row], chunk: Chunk) {
        try query.bind([.integer(after), .integer(limit ?? chunkSize)])
        var last = after
        var problems: [(rowid: Int, problem: String)] = []
        let all = try query.rows { statement -> Row? in
            last = statement.int(0) ?? last
            if let problem = problem(statement) {
                problems.append((last, problem))
                return nil
            }
            return row(statement, last)
        }
        let rows = all.compactMap { $0 }
        if rows.isEmpty && !all.isEmpty { try advance(item, to: last) }
        return (rows, Chunk(read: all.count, new: 0, last: last, skipped: problems))
    }

    /// Moves the watermark of `item` to `last` alone: a chunk whose every row was skipped.
    func advance(_ item: String, to last: Int) throws {
        _ = try target.write {
            try $0.execute(
                """
                INSERT INTO richpush_migrations AS m (source, item, last_rowid) VALUES ($1, $2, $3)
                ON CONFLICT (source, item) DO UPDATE SET last_rowid = GREATEST(m.last_rowid, excluded.last_rowid), updated_at = now()
                """, [sourceKey, item, String(last)])
        }
    }

    /// The progress CTE for a chunk: `$1` source, `$2` item, `$3` last rowid (parameters
    /// numbered from `first`).
    static func progressCTE(first: Int) -> String {
        """
        , progress AS (
            INSERT INTO richpush_migrations AS m (source, item, last_rowid) VALUES ($\(first), $\(first + 1), $\(first + 2))
            ON CONFLICT (source, item) DO UPDATE SET last_rowid = GREATEST(m.last_rowid, excluded.last_rowid), updated_at = now()
        )
        """
    }

    private func copyReceipts(after: Int) throws -> Chunk {
        let query = try source.prepared(
            """
            SELECT rowid, push_id, event, receipt_id, outcome, reason, elapsed_ms, media_bytes, media_type, user_agent, received_at_ms
            \(MigrationRowCheck.lengths(["push_id", "event", "receipt_id", "outcome", "reason", "media_type", "user_agent"])),
            \(sourceVersion >= 10 ? "device_id" : "NULL")
            FROM receipts WHERE rowid > ? ORDER BY rowid LIMIT ?
            """)
        try query.bind([.integer(after), .integer(chunkSize)])
        var last = after
        let rows = try query.rows { row -> (Int, Result<StoredReceipt, MigrationRowCheck.RowProblem>) in
            last = row.int(0) ?? last
            let checked = MigrationRowCheck.receipt(
                pushID: MigrationRowCheck.text(row, 1, 11), event: MigrationRowCheck.text(row, 2, 12), receiptID: MigrationRowCheck.text(row, 3, 13),
                outcome: MigrationRowCheck.text(row, 4, 14),
                reason: MigrationRowCheck.text(row, 5, 15), elapsedMs: row.int(6), mediaBytes: row.int(7), mediaType: MigrationRowCheck.text(row, 8, 16),
                userAgent: MigrationRowCheck.text(row, 9, 17), receivedAtMs: row.int(10))
            // Version 10: the device a receipt named (a value that is not a device id names none).
            let device = row.text(18).flatMap { DeviceCredentialRule.isDeviceID($0) ? $0 : nil }
            return (
                last,
                checked.map {
                    var stored = $0; stored.deviceID = device; return stored
                }
            )
        }
        guard !rows.isEmpty else { return Chunk(read: 0, new: 0, last: last) }
        var chunk = Chunk(read: rows.count, new: 0, last: last)
        var batch: [StoredReceipt] = []
        for (rowid, checked) in rows {
            switch checked {
            case .success(let receipt): batch.append(receipt)
            case .failure(let problem): chunk.skipped.append((rowid, problem.message))
            }
        }
        if batch.isEmpty {
            try advance("receipts", to: last)
        } else {
            chunk.new = try target.insertMigrated(batch, source: sourceKey, lastRowID: last)
        }
        return chunk
    }

    private func copyPushes(after: Int) throws -> Chunk {
        let skipped = sourceVersion >= 3 ? "skipped" : "0"
        let query = try source.prepared(
            "SELECT rowid, push_id, title, sent, accepted, first_sent_at_ms, last_sent_at_ms, \(skipped)\(MigrationRowCheck.lengths(["push_id", "title"])) FROM pushes WHERE rowid > ? ORDER BY rowid LIMIT ?"
        )
        let (rows, chunk) = try readChunk(query, item: "pushes", after: after, problem: MigrationRowCheck.pushProblem) { row, rowid in
            (rowid, row.text(1) ?? "", row.text(2), row.int(3), row.int(4), row.int(5), row.int(6), row.int(7) ?? 0)
        }
        guard !rows.isEmpty else { return chunk }
        // Before version 3 every send came from POST /v1/pushes through APNs: one batch says so
        // (a version-3 file has its batches, copied with the send batches).
        let batches =
            sourceVersion >= 3
            ? ""
            : """
            , batches AS (
                INSERT INTO push_send_batches (push_id, batch_id, source, sent, accepted, skipped, recorded_at_ms)
                SELECT push_id, 'before-v3', 'apns', sent, accepted, 0, COALESCE(last_sent_at_ms, 0)
                FROM unnest($1::text[], $3::bigint[], $4::bigint[], $6::bigint[]) AS b(push_id, sent, accepted, last_sent_at_ms)
                WHERE sent > 0 OR accepted > 0 ORDER BY 1
                ON CONFLICT DO NOTHING
            )
            """
        let result = try target.write {
            try $0.execute(
                """
                WITH merged AS (
                    INSERT INTO pushes AS p (push_id, title, sent, accepted, first_sent_at_ms, last_sent_at_ms, skipped)
                    SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $10::bigint[]) ORDER BY 1
                    ON CONFLICT (push_id) DO UPDATE SET sent = p.sent + excluded.sent, accepted = p.accepted + excluded.accepted,
                        skipped = p.skipped + excluded.skipped,
                        title = CASE WHEN excluded.last_sent_at_ms >= p.last_sent_at_ms THEN COALESCE(excluded.title, p.title)
                                     ELSE COALESCE(p.title, excluded.title) END,
                        first_sent_at_ms = LEAST(p.first_sent_at_ms, excluded.first_sent_at_ms),
                        last_sent_at_ms = GREATEST(p.last_sent_at_ms, excluded.last_sent_at_ms)
                    RETURNING (xmax = 0) AS inserted
                ), starts AS (
                    SELECT push_id, COALESCE(first_sent, last_sent, 0) AS started
                    FROM unnest($1::text[], $5::bigint[], $6::bigint[]) AS u(push_id, first_sent, last_sent)
                ), new_pushes AS (
                    INSERT INTO push_index (push_id, started_ms) SELECT push_id, started FROM starts ORDER BY push_id
                    ON CONFLICT (push_id) DO NOTHING RETURNING push_id
                ), earlier AS (
                    UPDATE push_index AS x SET started_ms = s.started FROM starts AS s
                    WHERE x.push_id = ANY($1::text[]) AND x.push_id = s.push_id AND x.started_ms > s.started
                ), copied_totals AS (
                    INSERT INTO totals AS t (slot, sent, accepted, pushes)
                    SELECT $11::smallint, (SELECT COALESCE(SUM(v), 0) FROM unnest($3::bigint[]) AS v),
                           (SELECT COALESCE(SUM(v), 0) FROM unnest($4::bigint[]) AS v), (SELECT count(*) FROM new_pushes)
                    ON CONFLICT (slot) DO UPDATE SET sent = t.sent + excluded.sent, accepted = t.accepted + excluded.accepted,
                        pushes = t.pushes + excluded.pushes
                )\(batches)\(Self.progressCTE(first: 7))
                SELECT count(*) FILTER (WHERE inserted) FROM merged
                """,
                [
                    PostgresArrayLiteral.text(rows.map(\.1)), PostgresArrayLiteral.text(rows.map(\.2)),
                    PostgresArrayLiteral.integers(rows.map { $0.3 ?? 0 }), PostgresArrayLiteral.integers(rows.map { $0.4 ?? 0 }),
                    PostgresArrayLiteral.integers(rows.map(\.5)), PostgresArrayLiteral.integers(rows.map(\.6)),
                    sourceKey, "pushes", String(chunk.last), PostgresArrayLiteral.integers(rows.map(\.7)), String($0.slot),
                ])
        }
        return chunk.written(new: result.int(0, 0) ?? 0)
    }

    private func copySendRecords(after: Int) throws -> Chunk {
        let outcome = sourceVersion >= 2 ? "outcome" : "NULL"
        let query = try source.prepared(
            "SELECT rowid, push_id, device_token, status, reason, apns_id, sent_at_ms, \(outcome)\(MigrationRowCheck.lengths(["push_id", "device_token", "reason", "apns_id", outcome])) FROM push_tokens WHERE rowid > ? ORDER BY rowid LIMIT ?"
        )
        let (rows, chunk) = try readChunk(query, item: "push_tokens", after: after, problem: MigrationRowCheck.sendRecordProblem) { row, rowid in
            (rowid, row.text(1) ?? "", row.text(2) ?? "", row.int(3), row.text(4), row.text(5), row.int(6) ?? 0, row.text(7))
        }
        guard !rows.isEmpty else { return chunk }
        let result = try target.write {
            try $0.execute(
                """
                WITH merged AS (
                    INSERT INTO push_tokens AS t (push_id, device_token, status, reason, apns_id, sent_at_ms, outcome)
                    SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::text[], $5::text[], $6::bigint[], $7::text[]) ORDER BY 1, 2
                    ON CONFLICT (push_id, device_token) DO UPDATE SET status = excluded.status, reason = excluded.reason,
                        apns_id = excluded.apns_id, sent_at_ms = excluded.sent_at_ms, outcome = excluded.outcome
                        WHERE t.sent_at_ms <= excluded.sent_at_ms
                    RETURNING (xmax = 0) AS inserted
                )\(Self.progressCTE(first: 8))
                SELECT count(*) FILTER (WHERE inserted) FROM merged
                """,
                [
                    PostgresArrayLiteral.text(rows.map(\.1)), PostgresArrayLiteral.text(rows.map(\.2)), PostgresArrayLiteral.integers(rows.map(\.3)),
                    PostgresArrayLiteral.text(rows.map(\.4)), PostgresArrayLiteral.text(rows.map(\.5)), PostgresArrayLiteral.integers(rows.map(\.6)),
                    PostgresArrayLiteral.text(rows.map(\.7)), sourceKey, "push_tokens", String(chunk.last),
                ])
        }
        return chunk.written(new: result.int(0, 0) ?? 0)
    }

    private func copyTokenStates(after: Int) throws -> Chunk {
        let query = try source.prepared(
            "SELECT rowid, device_token, state, reason, since_ms, updated_at_ms\(MigrationRowCheck.lengths(["device_token", "reason"])) FROM device_tokens WHERE rowid > ? ORDER BY rowid LIMIT ?"
        )
        let (rows, chunk) = try readChunk(query, item: "device_tokens", after: after, problem: MigrationRowCheck.tokenStateProblem) { row, rowid in
            (rowid, row.text(1) ?? "", row.text(2) ?? "", row.text(3), row.int(4), row.int(5) ?? 0)
        }
        guard !rows.isEmpty else { return chunk }
        let result = try target.write {
            try $0.execute(
                """
                WITH merged AS (
                    INSERT INTO device_tokens AS d (device_token, state, reason, since_ms, updated_at_ms)
                    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[]) ORDER BY 1
                    ON CONFLICT (device_token) DO UPDATE SET state = excluded.state, reason = excluded.reason,
                        since_ms = excluded.since_ms, updated_at_ms = excluded.updated_at_ms
                        WHERE d.updated_at_ms <= excluded.updated_at_ms
                    RETURNING (xmax = 0) AS inserted
                )\(Self.progressCTE(first: 6))
                SELECT count(*) FILTER (WHERE inserted) FROM merged
                """,
                [
                    PostgresArrayLiteral.text(rows.map(\.1)), PostgresArrayLiteral.text(rows.map(\.2)), PostgresArrayLiteral.text(rows.map(\.3)),
                    PostgresArrayLiteral.integers(rows.map(\.4)), PostgresArrayLiteral.integers(rows.map(\.5)), sourceKey, "device_tokens", String(chunk.last),
                ])
        }
        return chunk.written(new: result.int(0, 0) ?? 0)
    }

    private func copySendBatches(after: Int) throws -> Chunk {
        let query = try source.prepared(
            "SELECT rowid, push_id, batch_id, source, sent, accepted, skipped, recorded_at_ms\(MigrationRowCheck.lengths(["push_id", "batch_id", "source"])) FROM push_send_batches WHERE rowid > ? ORDER BY rowid LIMIT ?"
        )
        let (rows, chunk) = try readChunk(query, item: "push_send_batches", after: after, problem: MigrationRowCheck.sendBatchProblem) { row, rowid in
            (rowid, row.text(1) ?? "", row.text(2) ?? "", row.text(3) ?? "", row.int(4), row.int(5), row.int(6), row.int(7))
        }
        guard !rows.isEmpty else { return chunk }
        // The counts are in `pushes` already (copied with them): a batch is only its record, and
        // one recorded on both sides (the same batch id) is kept once.
        let result = try target.write {
            try $0.execute(
                """
                WITH merged AS (
                    INSERT INTO push_send_batches (push_id, batch_id, source, sent, accepted, skipped, recorded_at_ms)
                    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[]) ORDER BY 1, 2
                    ON CONFLICT (push_id, batch_id) DO NOTHING
                    RETURNING 1
                )\(Self.progressCTE(first: 8))
                SELECT count(*) FROM merged
                """,
                [
                    PostgresArrayLiteral.text(rows.map(\.1)), PostgresArrayLiteral.text(rows.map(\.2)), PostgresArrayLiteral.text(rows.map(\.3)),
                    PostgresArrayLiteral.integers(rows.map(\.4)), PostgresArrayLiteral.integers(rows.map(\.5)), PostgresArrayLiteral.integers(rows.map(\.6)),
                    PostgresArrayLiteral.integers(rows.map(\.7)), sourceKey, "push_send_batches", String(chunk.last),
                ])
        }
        return chunk.written(new: result.int(0, 0) ?? 0)
    }
}
