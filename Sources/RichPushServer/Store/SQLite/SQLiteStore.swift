import CSQLite
import Foundation
@_spi(RichPushInternal) import RichPushCore

/// The embedded store: one SQLite file in WAL mode, prepared statements, one write connection
/// and a small pool of read connections (WAL lets the dashboard read while the writer commits,
/// and several reads run at once).
///
/// Durability: `synchronous=FULL` by default: an acknowledged receipt survives a process kill
/// (SIGKILL) *and* an OS crash or power loss. The store gets there with SQLite's own WAL +
/// `synchronous=NORMAL` commit (frames written to the WAL file, no sync inside COMMIT) followed
/// by its own `fdatasync` of the WAL file (`syncCommitted()`) before anything is acknowledged:
/// after that sync every frame of every commit so far is on disk, which is exactly what
/// SQLite's FULL would have synced at COMMIT (SQLite still syncs the WAL before and the database
/// after each checkpoint, as in both modes). Doing the sync outside the write transaction lets
/// the group-commit writer run the next batch's inserts while the previous batch syncs, and lets
/// one `fdatasync` cover several commits. `--synchronous normal` skips that fsync (WAL + NORMAL): a commit has still been
/// written to the OS by `write(2)`, so it survives SIGKILL of the process, but the last commits
/// can be lost if the OS itself crashes. We default to FULL because a `202` promises durability.
///
/// Schema (version 10, `PRAGMA user_version`; v10 fair campaigns, variants, recipients and
/// conversions, `SQLiteStore+Version10`; v5 adds `idempotency_keys`, `SQLiteStore+Idempotency`;
/// v6 the media edge's tables, `SQLiteStore+Media`; v7 campaigns and device tags,
/// `SQLiteStore+Campaigns`; v8 the webhook outbox, `SQLiteStore+Webhooks`; v9 `admitted_codes`,
/// `SQLiteStore+Bounds`):
/// - `receipts`: one row per distinct receipt; UNIQUE (`push_id`, `event`, `receipt_id`) dedups
///   (NULL `receipt_id`s never collide, so receipts without one are each counted). `push_id`
///   leads every key so a PostgreSQL/Citus store can shard by it.
/// - `push_counts`: per (`push_id`, `event`, `outcome`, `reason`) the number of distinct receipts,
///   their media bytes and first/last arrival, kept in the same transaction as the inserts (one
///   upsert per distinct key per batch), so figures never scan `receipts` (`''` = not given).
/// - `push_elapsed`: per `push_id` and `elapsed_ms` value the number of delivered receipts, so
///   p50/p95 are exact and cheap (values are bounded to 0…600,000 ms).
/// - `pushes`: per push `sent` / `accepted` counts and a title, filled by the provider side.
/// - `push_tokens`: per push and device token the APNs status, reason, `apns-id` and outcome.
/// - `device_tokens` (v2): tokens a provider called inactive (410, `UNREGISTERED`) or bad, or the
///   app deleted, with reason and since when; a later 200 for the token removes its row, and a
///   registration after that time makes it sendable again.
/// - `push_send_batches` (v3): each recorded batch of sends with its source (`apns`, `fcm`,
///   `onesignal`, …) and counts; (`push_id`, `batch_id`) is unique, so a batch is counted once.
/// - `devices` (v3): tokens registered by the app (`POST /v1/devices`): provider, platform,
///   user id, app version, when.
/// - Summaries (v4), kept in the same write transaction as what they count, so that no read
///   scans a table that grows with the number of pushes or receipts (`SQLiteStore+Summaries`):
///   `push_index` (push id → when it started, indexed by start for keyset pages), `totals` (one
///   row: the dashboard's cards), `reason_totals` (indexed by count for the top reasons),
///   `elapsed_totals` (overall timing, 3 significant digits) and `timeline` (delivered / opened
///   per second — kept 48 h —, minute, hour and day).
// @unchecked: the writer connection and its caches are used under `writeLock`, the WAL handle in a `Locked`
public final class SQLiteStore: ReceiptStore, StatisticsStore, @unchecked Sendable {
    /// How hard SQLite syncs at each COMMIT.
    public struct Synchronous: Sendable, Hashable, CustomStringConvertible {
        /// The PRAGMA value, `FULL` or `NORMAL`.
        public let rawValue: String
        /// fsync the WAL at every commit: survives process kill and OS crash (default).
        public static let full = Synchronous(rawValue: "FULL")
        /// No fsync at commit: survives process kill, the last commits may be lost on OS crash.
        public static let normal = Synchronous(rawValue: "NORMAL")
        public var description: String { rawValue.lowercased() }

        /// Parses `full` or `normal` (any case).
        public init?(_ text: String) {
            switch text.lowercased() {
            case "full": self = .full
            case "normal": self = .normal
            default: return nil
            }
        }

        private init(rawValue: String) { self.rawValue = rawValue }
    }

    let writer: SQLiteConnection
    let readers: SQLiteReaderPool
    /// `NSLock`, not `Locked`: it guards a connection (the writer, its statements and the caches
    /// below) for a whole transaction, not one value.
    let writeLock = NSLock()
    /// The hour (ms / 3,600,000) in which old per-second timeline rows were last dropped.
    var prunedHour = -1
    /// Push ids known to be in `push_index`, with their start (ms) and whether a send is
    /// recorded for them: most batches name pushes seen before, and skip their upsert and lookup.
    /// Written only under the write lock after a COMMIT; bounded (`knownPushesLimit`), emptied
    /// when full or when a transaction fails. (One process writes a SQLite store.)
    var knownPushes: [String: KnownPush] = [:]
    /// The most push ids `knownPushes` holds.
    static let knownPushesLimit = 20_000
    private var closed = false
    /// The admitted unknown codes (`CodeFolding`), cached.
    let codeAdmissions = CodeAdmissions()
    /// What the open write transaction gives idle loops work for, announced on `feed` after its
    /// COMMIT (under `writeLock`).
    var pendingChanges: Set<StoreChange> = []
    /// The in-process change feed of this file.
    let feed: LocalChangeFeed
    /// The database file.
    public let path: String
    /// Whether `syncCommitted()` must fdatasync the WAL (FULL asked, NORMAL run by SQLite).
    private let syncsWAL: Bool
    /// An fd on the `-wal` file (same inode SQLite writes; fdatasync flushes the inode), -1
    /// until the first sync; one sync at a time.
    private let walDescriptor = Locked<Int32>(-1)

    private static let insertSQL = """
        INSERT INTO receipts (push_id, event, receipt_id, outcome, reason, elapsed_ms, media_bytes, media_type, user_agent, received_at_ms, device_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
        """

    /// Opens (creating if needed) the database file and its schema.
    ///
    /// - Parameters:
    ///   - path: the file, e.g. `./richpush.sqlite`.
    ///   - synchronous: `.full` (default) or `.normal`; see the type's discussion.
    ///   - names: what the program calls its settings, for messages.
    /// - Throws: `RichPushError` `store` when the file cannot be opened or is not a RichPush
    ///   database (its `setting` is `database`, its `path` the file).
    public init(path: String, synchronous: Synchronous = .full, names: StoreSettingNames = .descriptive) throws {
        self.path = path
        self.syncsWAL = synchronous == .full
        feed = LocalChangeFeed.forFile(path)
        writer = try SQLiteConnection(
            path: path, notADatabaseHint: "pass \(names.database) with a new or existing richpush database path", setting: .database)
        // Another process opening the same new file may be switching it to WAL right now.
        try writer.execute("PRAGMA journal_mode=WAL", busyRetrySeconds: 10)
        // FULL is kept by syncing the WAL ourselves (syncCommitted), outside the transaction.
        try writer.execute("PRAGMA synchronous=NORMAL")
        try writer.execute("PRAGMA foreign_keys=ON")
        try Self.migrate(writer, names: names)
        readers = try SQLiteReaderPool(path: path)
        _ = try writer.prepared(Self.insertSQL)
        writer.setBusyTimeout(seconds: SQLiteBusyWatch.busySeconds)
    }

    /// The schema version this richpush writes (`PRAGMA user_version`).
    static let schemaVersion = 10
    /// The tables of schema version 10; a version-0 file holding any other table is not ours.
    static let tables: Set<String> = [
        "receipts", "push_counts", "push_elapsed", "pushes", "push_tokens", "device_tokens", "push_send_batches", "devices",
        "push_index", "totals", "reason_totals", "elapsed_totals", "timeline", "idempotency_keys", "media_objects", "push_media",
        "campaigns", "campaign_chunks", "campaign_targets", "campaign_budget", "device_tags",
        "webhook_outbox", "webhook_endpoints", "admitted_codes", "campaign_variants", "conversions",
    ]

    /// Brings the schema to `schemaVersion`, atomically and idempotently.
    ///
    /// Several processes may open one new file at the same moment (two `richpush serve`
    /// started together): each takes the write lock first (`BEGIN IMMEDIATE`; the others wait,
    /// up to the connection's busy timeout), reads `user_version` inside that transaction,
    /// applies only the missing steps and commits, so the second one finds version 2 and does
    /// nothing. Each step also tolerates work already done (`IF NOT EXISTS`, the v2 column
    /// checked with `pragma table_info`), so a file left at version 1 with the v2 column
    /// present (by richpush before this fix) opens and is repaired.
    private static func migrate(_ db: SQLiteConnection, names: StoreSettingNames) throws {
        try db.execute("BEGIN IMMEDIATE")
        do {
            let current = try db.prepared("PRAGMA user_version").rows { $0.int(0) ?? 0 }.first ?? 0
            if current > schemaVersion {
                throw RichPushError(
                    code: .store,
                    message:
                        "'\(db.path)' has schema version \(current), newer than this richpush (\(schemaVersion)); upgrade richpush or use another \(names.database)",
                    setting: StoreSettingNames.Setting.database.rawValue, path: db.path
                )
            }
            if current == 0 {
                let existing = try db.prepared("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                    .rows { $0.text(0) ?? "" }
                let foreign = existing.filter { !tables.contains($0) }.sorted()
                if !foreign.isEmpty {
                    throw RichPushError(
                        code: .store,
                        message:
                            "'\(db.path)' is a SQLite database but not a RichPush one (tables: \(foreign.prefix(5).joined(separator: ", "))); pass \(names.database) with a new or existing richpush database path",
                        setting: StoreSettingNames.Setting.database.rawValue, path: db.path
                    )
                }
            }
            if current < 1 { try createVersion1(db) }
            if current < 2 { try migrateToVersion2(db) }
            if current < 3 { try migrateToVersion3(db) }
            if current < 4 { try migrateToVersion4(db) }
            if current < 5 { try migrateToVersion5(db) }
            if current < 6 { try migrateToVersion6(db) }
            if current < 7 { try migrateToVersion7(db) }
            if current < 8 { try migrateToVersion8(db) }
            if current < 9 { try migrateToVersion9(db) }
            if current < 10 { try migrateToVersion10(db) }
            if current < schemaVersion { try db.execute("PRAGMA user_version = \(schemaVersion)") }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    // MARK: ReceiptStore

    /// Keeps campaigns (`SQLiteStore+Campaigns`).
    public func campaignStore() -> any CampaignStore { self }
    /// Keeps idempotency keys (`SQLiteStore+Idempotency`).
    public func idempotencyStore() -> any IdempotencyStore { self }
    /// Keeps the webhook outbox (`SQLiteStore+Webhooks`).
    public func webhookOutbox() -> any WebhookOutboxStore { self }
    /// This process's writes to the file, announced at their COMMIT (`LocalChangeFeed`).
    public func changeFeed() -> any StoreChangeFeed { feed }

    /// After a COMMIT (under `writeLock`): announces what it gave work for.
    func announceCommitted() {
        let changes = pendingChanges
        pendingChanges = []
        feed.publish(changes)
    }

    /// Inserts a batch in one `BEGIN IMMEDIATE … COMMIT` with `ON CONFLICT DO NOTHING` and syncs
    /// it (see `ReceiptStore.insert(_:)`).
    public func insert(_ receipts: [StoredReceipt]) throws -> [Bool] {
        let results = try insertDeferringSync(receipts)
        try syncCommitted()
        return results
    }

    /// Inserts a batch in one `BEGIN IMMEDIATE … COMMIT` with `ON CONFLICT DO NOTHING`; durable
    /// after the next `syncCommitted()` (see `ReceiptStore.insertDeferringSync(_:)`).
    public func insertDeferringSync(_ receipts: [StoredReceipt]) throws -> [Bool] {
        try insertReportingPushes(receipts).isNew
    }

    /// Inserts a batch as `insertDeferringSync(_:)` does, unknown codes past their bounds folded
    /// to `other` (`CodeFolding`, in the same transaction), and says which push ids were new.
    public func insertReportingPushes(_ batch: [StoredReceipt]) throws -> ReceiptBatchResult {
        writeLock.lock()
        defer { writeLock.unlock() }
        try ensureOpen()
        try writer.execute("BEGIN IMMEDIATE")
        do {
            let receipts = try foldCodes(batch)
            let statement = try writer.prepared(Self.insertSQL)
            var results: [Bool] = []
            results.reserveCapacity(receipts.count)
            var counts: [PushCountKey: PushCountDelta] = [:]
            var elapsed: [PushElapsedKey: Int] = [:]
            for stored in receipts {
                let r = stored.receipt
                statement.reset()
                try statement.bind([
                    .text(r.pushID), .text(r.event.rawValue), .optional(r.receiptID), .optional(r.outcome?.rawValue),
                    .optional(r.reason?.rawValue), .optional(r.elapsedMs), .optional(r.mediaBytes), .optional(r.mediaType),
                    .optional(stored.userAgent), .integer(stored.receivedAtMs), .optional(stored.deviceID),
                ])
                try statement.run()
                let isNew = writer.changes == 1
                results.append(isNew)
                guard isNew else { continue }
                let key = PushCountKey(pushID: r.pushID, event: r.event.rawValue, outcome: r.outcome?.rawValue ?? "", reason: r.reason?.rawValue ?? "")
                counts[key, default: PushCountDelta(first: stored.receivedAtMs, last: stored.receivedAtMs)].add(stored)
                if r.event == .delivered, let ms = r.elapsedMs { elapsed[PushElapsedKey(pushID: r.pushID, ms: ms), default: 0] += 1 }
            }
            let countUpsert = try writer.prepared(
                """
                INSERT INTO push_counts (push_id, event, outcome, reason, receipts, media_bytes, first_ms, last_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT DO UPDATE SET receipts = receipts + excluded.receipts, media_bytes = media_bytes + excluded.media_bytes,
                  first_ms = MIN(first_ms, excluded.first_ms), last_ms = MAX(last_ms, excluded.last_ms)
                """
            )
            for (key, value) in counts {
                countUpsert.reset()
                try countUpsert.bind([
                    .text(key.pushID), .text(key.event), .text(key.outcome), .text(key.reason), .integer(value.receipts),
                    .integer(value.mediaBytes), .integer(value.first), .integer(value.last),
                ])
                try countUpsert.run()
            }
            let elapsedUpsert = try writer.prepared(
                "INSERT INTO push_elapsed (push_id, elapsed_ms, receipts) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET receipts = receipts + excluded.receipts"
            )
            for (key, n) in elapsed {
                elapsedUpsert.reset()
                try elapsedUpsert.bind([.text(key.pushID), .integer(key.ms), .integer(n)])
                try elapsedUpsert.run()
            }
            var newPushIDs = Set<String>()
            let indexed = try updateSummaries(receipts, isNew: results, newPushIDs: &newPushIDs)
            try writer.execute("COMMIT")
            remember(indexed)
            return ReceiptBatchResult(isNew: results, newPushIDs: newPushIDs)
        } catch {
            try? writer.execute("ROLLBACK")
            knownPushes.removeAll()
            codeAdmissions.forget()
            throw error
        }
    }

    /// Records the batch, upserts the push's counts and each token's outcome and state in one
    /// transaction (see `ReceiptStore.recordSend(_:)`).
    @discardableResult
    public func recordSend(_ send: PushSendRecord) throws -> SendRecording {
        writeLock.lock()
        defer { writeLock.unlock() }
        try ensureOpen()
        try writer.execute("BEGIN IMMEDIATE")
        do {
            let (recording, indexed) = try writeSend(send)
            guard recording == .recorded else {
                try writer.execute("ROLLBACK")
                pendingChanges = []
                return recording
            }
            try writer.execute("COMMIT")
            remember(indexed)
            announceCommitted()
        } catch {
            try? writer.execute("ROLLBACK")
            pendingChanges = []
            knownPushes.removeAll()
            throw error
        }
        try syncCommitted()
        return .recorded
    }

    /// Writes one send (`recordSend`) inside the caller's write transaction, under `writeLock`:
    /// nothing for a batch id recorded before (`.duplicate` or `.conflict`). The caller commits,
    /// then hands the returned pushes to `remember`.
    func writeSend(_ send: PushSendRecord) throws -> (SendRecording, [String: KnownPush]) {
        let counts = send.counts
        do {
            if let batchID = send.batchID {
                let existing = try writer.prepared("SELECT source, sent, accepted, skipped FROM push_send_batches WHERE push_id = ? AND batch_id = ?")
                try existing.bind([.text(send.pushID), .text(batchID)])
                if let (source, sent, accepted, skipped) = try existing.rows({ ($0.text(0) ?? "", $0.int(1) ?? 0, $0.int(2) ?? 0, $0.int(3) ?? 0) }).first {
                    if source == send.source, sent == counts.sent, accepted == counts.accepted, skipped == counts.skipped { return (.duplicate, [:]) }
                    return (.conflict(source: source, sent: sent, accepted: accepted, skipped: skipped), [:])
                }
            }
            let batch = try writer.prepared(
                "INSERT INTO push_send_batches (push_id, batch_id, source, sent, accepted, skipped, recorded_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)"
            )
            try batch.bind([
                .text(send.pushID), .text(send.batchID ?? "unkeyed-" + UUID().uuidString.lowercased()), .text(send.source),
                .integer(counts.sent), .integer(counts.accepted), .integer(counts.skipped), .integer(send.sentAtMs),
            ])
            try batch.run()
            let indexed = try updateSummaries(send, sent: counts.sent, accepted: counts.accepted)
            let push = try writer.prepared(
                """
                INSERT INTO pushes (push_id, title, sent, accepted, skipped, first_sent_at_ms, last_sent_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (push_id) DO UPDATE SET sent = sent + excluded.sent, accepted = accepted + excluded.accepted,
                  skipped = skipped + excluded.skipped, title = COALESCE(excluded.title, title),
                  first_sent_at_ms = MIN(COALESCE(first_sent_at_ms, excluded.first_sent_at_ms), excluded.first_sent_at_ms),
                  last_sent_at_ms = MAX(COALESCE(last_sent_at_ms, excluded.last_sent_at_ms), excluded.last_sent_at_ms)
                """
            )
            try push.bind([
                .text(send.pushID), .optional(send.title), .integer(counts.sent), .integer(counts.accepted), .integer(counts.skipped),
                .integer(send.sentAtMs), .integer(send.sentAtMs),
            ])
            try push.run()
            let token = try writer.prepared(
                """
                INSERT INTO push_tokens (push_id, device_token, status, reason, apns_id, sent_at_ms, outcome) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (push_id, device_token) DO UPDATE SET status = excluded.status, reason = excluded.reason,
                  apns_id = excluded.apns_id, sent_at_ms = excluded.sent_at_ms, outcome = excluded.outcome
                """
            )
            let markState = try writer.prepared(
                """
                INSERT INTO device_tokens (device_token, state, reason, since_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (device_token) DO UPDATE SET state = excluded.state, reason = excluded.reason,
                  since_ms = excluded.since_ms, updated_at_ms = excluded.updated_at_ms
                """
            )
            let clearState = try writer.prepared("DELETE FROM device_tokens WHERE device_token = ?")
            for t in send.tokens {
                token.reset()
                try token.bind([
                    .text(send.pushID), .text(t.deviceToken), .optional(t.status), .optional(t.reason), .optional(t.apnsID),
                    .integer(send.sentAtMs), .optional(t.outcome),
                ])
                try token.run()
                if let state = t.state {
                    markState.reset()
                    try markState.bind([
                        .text(t.deviceToken), .text(state.rawValue), .optional(t.reason), .optional(t.inactiveSinceMs), .integer(send.sentAtMs),
                    ])
                    try markState.run()
                } else if t.wasAccepted {
                    clearState.reset()
                    try clearState.bind([.text(t.deviceToken)])
                    try clearState.run()
                }
            }
            try insertWebhookDeliveries(send.webhookDeliveries)
            return (.recorded, indexed)
        }
    }

    /// fdatasyncs the WAL file when the store was opened with `.full` (see
    /// `ReceiptStore.syncCommitted()`); callable from any thread.
    public func syncCommitted() throws {
        guard syncsWAL else { return }
        try walDescriptor.withLock { walDescriptor in
            if walDescriptor < 0 {
                // The -wal file exists once the first write transaction began, and SQLite keeps
                // it (same inode) while this store's connections are open.
                let fd = open(path + "-wal", O_RDWR | O_CLOEXEC)
                guard fd >= 0 else {
                    throw RichPushError(code: .store, message: "cannot open '\(path)-wal' to sync it: \(String(cString: strerror(errno)))")
                }
                walDescriptor = fd
            }
            guard fdatasync(walDescriptor) == 0 else {
                throw RichPushError(code: .store, message: "fdatasync of '\(path)-wal' failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Checkpoints the WAL into the main file (`wal_checkpoint(TRUNCATE)`); later writes fail.
    public func close() throws {
        writeLock.lock()
        defer { writeLock.unlock() }
        guard !closed else { return }
        closed = true
        try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        walDescriptor.withLock { walDescriptor in
            if walDescriptor >= 0 { closeDescriptor(walDescriptor) }
            walDescriptor = -1
        }
    }

    func ensureOpen() throws {
        if closed { throw RichPushError(code: .store, message: "the store '\(path)' is closed") }
    }

    /// Runs `body` in one write transaction on the writer, under the write lock: committed before
    /// it returns (and, with `synced`, durable: `syncCommitted()`), rolled back when it throws.
    ///
    /// - Parameters:
    ///   - synced: whether to sync after the commit (default `true`).
    ///   - body: the writes, on the writer connection.
    /// - Returns: what `body` returned.
    /// - Throws: `RichPushError` `store`, or what `body` threw (nothing committed).
    func writeTransaction<T>(synced: Bool = true, _ body: (SQLiteConnection) throws -> T) throws -> T {
        writeLock.lock()
        defer { writeLock.unlock() }
        try ensureOpen()
        try writer.execute("BEGIN IMMEDIATE")
        let result: T
        do {
            result = try body(writer)
            try writer.execute("COMMIT")
            announceCommitted()
        } catch {
            try? writer.execute("ROLLBACK")
            pendingChanges = []
            throw error
        }
        if synced { try syncCommitted() }
        return result
    }

    // MARK: StatisticsStore (reads in SQLiteStore+Reads)

    /// Milliseconds since 1970 as ISO 8601 UTC with milliseconds, e.g. `2026-11-30T03:27:32.120Z`.
    static func iso8601(_ ms: Int) -> String {
        RFC3339Time.format(milliseconds: ms)
    }
}

/// `close(2)` (a free function: inside `SQLiteStore` the name `close` is the store's method).
private func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
