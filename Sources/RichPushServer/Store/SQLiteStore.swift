import CSQLite
import Foundation
import RichPushCore

/// The embedded store: one SQLite file in WAL mode, prepared statements, one write connection
/// and one read connection (WAL lets the dashboard read while the writer commits).
///
/// Durability: `synchronous=FULL` by default. In WAL mode SQLite then fsyncs the WAL at every
/// COMMIT, so an acknowledged receipt survives a process kill (SIGKILL) *and* an OS crash or
/// power loss. With group commit one fsync covers a whole batch, so the cost is per batch, not
/// per receipt. `--synchronous normal` skips that fsync (WAL + NORMAL): a commit has still been
/// written to the OS by `write(2)`, so it survives SIGKILL of the process, but the last commits
/// can be lost if the OS itself crashes. We default to FULL because a `202` promises durability.
///
/// Schema (version 1, `PRAGMA user_version`):
/// - `receipts`: one row per distinct receipt; UNIQUE (`push_id`, `event`, `receipt_id`) dedups
///   (NULL `receipt_id`s never collide, so receipts without one are each counted). `push_id`
///   leads every key so a PostgreSQL/Citus store can shard by it.
/// - `pushes`: per push `sent` / `accepted` counts and a title, filled by the provider side.
/// - `push_tokens`: per push and device token the APNs status, reason and `apns-id`.
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

    private let writer: SQLiteConnection
    private let reader: SQLiteConnection
    private let writeLock = NSLock()
    private let readLock = NSLock()
    private var closed = false
    /// The database file.
    public let path: String

    private static let insertSQL = """
        INSERT INTO receipts (push_id, event, receipt_id, outcome, reason, elapsed_ms, media_bytes, media_type, user_agent, received_at_ms)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
        """

    /// Opens (creating if needed) the database file and its schema.
    ///
    /// - Parameters:
    ///   - path: the file, e.g. `./richpush.sqlite`.
    ///   - synchronous: `.full` (default) or `.normal`; see the type's discussion.
    /// - Throws: `RichPushError` `store` when the file cannot be opened or is not a RichPush database.
    public init(path: String, synchronous: Synchronous = .full) throws {
        self.path = path
        writer = try SQLiteConnection(path: path)
        try writer.execute("PRAGMA journal_mode=WAL")
        try writer.execute("PRAGMA synchronous=\(synchronous.rawValue)")
        try writer.execute("PRAGMA foreign_keys=ON")
        try Self.migrate(writer)
        reader = try SQLiteConnection(path: path)
        try reader.execute("PRAGMA query_only=ON")
        _ = try writer.prepared(Self.insertSQL)
    }

    private static func migrate(_ db: SQLiteConnection) throws {
        let version = try db.prepared("PRAGMA user_version")
        let current = try version.rows { $0.int(0) ?? 0 }.first ?? 0
        if current > 1 {
            throw RichPushError(
                code: .store,
                message: "'\(db.path)' has schema version \(current), newer than this richpush (1); upgrade richpush or use another --db"
            )
        }
        if current == 1 { return }
        try db.execute(
            """
            BEGIN;
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
            CREATE INDEX IF NOT EXISTS receipts_received_at ON receipts (received_at_ms);
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
            PRAGMA user_version = 1;
            COMMIT;
            """
        )
    }

    // MARK: ReceiptStore

    public func insert(_ receipts: [StoredReceipt]) throws -> [Bool] {
        writeLock.lock()
        defer { writeLock.unlock() }
        try ensureOpen()
        try writer.execute("BEGIN IMMEDIATE")
        do {
            let statement = try writer.prepared(Self.insertSQL)
            var results: [Bool] = []
            results.reserveCapacity(receipts.count)
            for stored in receipts {
                let r = stored.receipt
                statement.reset()
                try statement.bind([
                    .text(r.pushID), .text(r.event.rawValue), .optional(r.receiptID), .optional(r.outcome?.rawValue),
                    .optional(r.reason?.rawValue), .optional(r.elapsedMs), .optional(r.mediaBytes), .optional(r.mediaType),
                    .optional(stored.userAgent), .integer(stored.receivedAtMs),
                ])
                try statement.run()
                results.append(writer.changes == 1)
            }
            try writer.execute("COMMIT")
            return results
        } catch {
            try? writer.execute("ROLLBACK")
            throw error
        }
    }

    public func recordSend(_ send: PushSendRecord) throws {
        writeLock.lock()
        defer { writeLock.unlock() }
        try ensureOpen()
        try writer.execute("BEGIN IMMEDIATE")
        do {
            let accepted = send.tokens.filter { $0.status == 200 }.count
            let push = try writer.prepared(
                """
                INSERT INTO pushes (push_id, title, sent, accepted, first_sent_at_ms, last_sent_at_ms) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (push_id) DO UPDATE SET sent = sent + excluded.sent, accepted = accepted + excluded.accepted,
                  title = COALESCE(excluded.title, title), last_sent_at_ms = excluded.last_sent_at_ms
                """
            )
            try push.bind([
                .text(send.pushID), .optional(send.title), .integer(send.tokens.count), .integer(accepted),
                .integer(send.sentAtMs), .integer(send.sentAtMs),
            ])
            try push.run()
            let token = try writer.prepared(
                """
                INSERT INTO push_tokens (push_id, device_token, status, reason, apns_id, sent_at_ms) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (push_id, device_token) DO UPDATE SET status = excluded.status, reason = excluded.reason,
                  apns_id = excluded.apns_id, sent_at_ms = excluded.sent_at_ms
                """
            )
            for t in send.tokens {
                token.reset()
                try token.bind([
                    .text(send.pushID), .text(t.deviceToken), .optional(t.status), .optional(t.reason), .optional(t.apnsID),
                    .integer(send.sentAtMs),
                ])
                try token.run()
            }
            try writer.execute("COMMIT")
        } catch {
            try? writer.execute("ROLLBACK")
            throw error
        }
    }

    public func close() throws {
        writeLock.lock()
        defer { writeLock.unlock() }
        guard !closed else { return }
        closed = true
        try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    private func ensureOpen() throws {
        if closed { throw RichPushError(code: .store, message: "the store '\(path)' is closed") }
    }

    // MARK: StatisticsStore

    public func pushes(limit: Int) throws -> [PushStatistics] {
        readLock.lock()
        defer { readLock.unlock() }
        try reader.execute("BEGIN")
        defer { try? reader.execute("COMMIT") }
        return try readPushes(only: nil, limit: max(1, min(limit, 1000)))
    }

    public func push(_ pushID: String) throws -> PushStatistics? {
        readLock.lock()
        defer { readLock.unlock() }
        try reader.execute("BEGIN")
        defer { try? reader.execute("COMMIT") }
        return try readPushes(only: pushID, limit: 1).first
    }

    /// Reads per-push figures, for one push or the most recently seen `limit` pushes.
    private func readPushes(only pushID: String?, limit: Int) throws -> [PushStatistics] {
        struct Row {
            var delivered = 0, opened = 0, mediaBytes = 0
            var first: Int?, last: Int?
            var sent: Int?, accepted: Int?
            var outcomes: [String: Int] = [:], reasons: [String: Int] = [:]
        }
        var rows: [String: Row] = [:]
        let filter = pushID == nil ? "" : "WHERE push_id = ?"
        let binding: [SQLiteValue] = pushID.map { [.text($0)] } ?? []

        let totals = try reader.prepared(
            """
            SELECT push_id, SUM(event = 'delivered'), SUM(event = 'opened'),
                   COALESCE(SUM(CASE WHEN event = 'delivered' THEN media_bytes END), 0), MIN(received_at_ms), MAX(received_at_ms)
            FROM receipts \(filter) GROUP BY push_id
            """
        )
        try totals.bind(binding)
        for (id, row) in try totals.rows({ s in
            (s.text(0) ?? "", Row(delivered: s.int(1) ?? 0, opened: s.int(2) ?? 0, mediaBytes: s.int(3) ?? 0, first: s.int(4), last: s.int(5)))
        }) {
            rows[id] = row
        }
        let sends = try reader.prepared("SELECT push_id, sent, accepted, first_sent_at_ms, last_sent_at_ms FROM pushes \(filter)")
        try sends.bind(binding)
        for (id, sent, accepted, firstSent, lastSent) in try sends.rows({ ($0.text(0) ?? "", $0.int(1), $0.int(2), $0.int(3), $0.int(4)) }) {
            var row = rows[id] ?? Row(first: firstSent, last: lastSent)
            row.sent = sent
            row.accepted = accepted
            rows[id] = row
        }
        var ordered = rows.sorted { ($0.value.last ?? 0, $0.key) > ($1.value.last ?? 0, $1.key) }
        if ordered.count > limit { ordered = Array(ordered.prefix(limit)) }
        let wanted = Set(ordered.map(\.key))

        let breakdown = try reader.prepared(
            """
            SELECT push_id, outcome, reason, COUNT(*) FROM receipts \(pushID == nil ? "WHERE" : "WHERE push_id = ? AND") event = 'delivered'
            GROUP BY push_id, outcome, reason
            """
        )
        try breakdown.bind(binding)
        for (id, outcome, reason, count) in try breakdown.rows({ ($0.text(0) ?? "", $0.text(1), $0.text(2), $0.int(3) ?? 0) })
        where wanted.contains(id) {
            if let outcome { rows[id]?.outcomes[outcome, default: 0] += count }
            if let reason { rows[id]?.reasons[reason, default: 0] += count }
        }

        let elapsed = try reader.prepared(
            "SELECT elapsed_ms FROM receipts WHERE push_id = ? AND event = 'delivered' AND elapsed_ms IS NOT NULL ORDER BY elapsed_ms"
        )
        var out: [PushStatistics] = []
        for (id, _) in ordered {
            guard let row = rows[id] else { continue }
            elapsed.reset()
            try elapsed.bind([.text(id)])
            let values = try elapsed.rows { $0.int(0) ?? 0 }
            out.append(
                PushStatistics(
                    pushID: id, sent: row.sent, accepted: row.accepted, delivered: row.delivered, opened: row.opened,
                    outcomes: row.outcomes, reasons: row.reasons, mediaBytes: row.mediaBytes,
                    elapsedMs: .init(count: values.count, p50: PushStatistics.percentile(values, 50), p95: PushStatistics.percentile(values, 95)),
                    firstSeen: row.first.map(Self.iso8601), lastSeen: row.last.map(Self.iso8601)
                )
            )
        }
        return out
    }

    public func dashboard(maximumBuckets: Int) throws -> DashboardSnapshot {
        readLock.lock()
        defer { readLock.unlock() }
        try reader.execute("BEGIN")
        defer { try? reader.execute("COMMIT") }

        let totals = try reader.prepared(
            """
            SELECT COUNT(*), SUM(event = 'delivered'), SUM(event = 'opened'),
                   SUM(event = 'delivered' AND outcome = 'media_attached'), SUM(event = 'delivered' AND outcome IS NOT NULL),
                   MIN(received_at_ms), MAX(received_at_ms)
            FROM receipts
            """
        )
        let t = try totals.rows { s in (s.int(0) ?? 0, s.int(1) ?? 0, s.int(2) ?? 0, s.int(3) ?? 0, s.int(4) ?? 0, s.int(5), s.int(6)) }.first
        let sendTotals = try reader.prepared("SELECT COALESCE(SUM(sent), 0), COALESCE(SUM(accepted), 0) FROM pushes")
        let s = try sendTotals.rows { ($0.int(0) ?? 0, $0.int(1) ?? 0) }.first ?? (0, 0)

        var bucketSeconds = 60
        var timeline: [DashboardSnapshot.TimeBucket] = []
        if let t, let first = t.5, let last = t.6 {
            let spanSeconds = max(1, (last - first) / 1000 + 1)
            let widths = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]
            bucketSeconds = widths.first { spanSeconds / $0 < max(1, maximumBuckets) } ?? 86400
            let widthMs = bucketSeconds * 1000
            let origin = (first / widthMs) * widthMs
            let count = (last - origin) / widthMs + 1
            timeline = (0..<count).map { DashboardSnapshot.TimeBucket(startMs: origin + $0 * widthMs, delivered: 0, opened: 0) }
            let q = try reader.prepared(
                "SELECT (received_at_ms - ?) / ?, SUM(event = 'delivered'), SUM(event = 'opened') FROM receipts GROUP BY 1"
            )
            try q.bind([.integer(origin), .integer(widthMs)])
            for (index, delivered, opened) in try q.rows({ ($0.int(0) ?? 0, $0.int(1) ?? 0, $0.int(2) ?? 0) })
            where timeline.indices.contains(index) {
                timeline[index].delivered = delivered
                timeline[index].opened = opened
            }
        }

        let reasonsQuery = try reader.prepared(
            "SELECT reason, COUNT(*) FROM receipts WHERE event = 'delivered' AND reason IS NOT NULL GROUP BY reason ORDER BY 2 DESC, 1"
        )
        let reasons = try reasonsQuery.rows { (reason: $0.text(0) ?? "", count: $0.int(1) ?? 0) }

        let edges = DashboardSnapshot.timingEdgesMs
        let cases = edges.indices.map { i in
            i + 1 < edges.count
                ? "SUM(elapsed_ms >= \(edges[i]) AND elapsed_ms < \(edges[i + 1]))" : "SUM(elapsed_ms >= \(edges[i]))"
        }
        let timingQuery = try reader.prepared(
            "SELECT \(cases.joined(separator: ", ")) FROM receipts WHERE event = 'delivered' AND elapsed_ms IS NOT NULL"
        )
        let counts = try timingQuery.rows { s in edges.indices.map { s.int(Int32($0)) ?? 0 } }.first ?? edges.map { _ in 0 }
        let timing = edges.indices.map { i in
            DashboardSnapshot.TimingBucket(lowerMs: edges[i], upperMs: i + 1 < edges.count ? edges[i + 1] : nil, count: counts[i])
        }
        let n = counts.reduce(0, +)
        let p50 = try overallPercentile(50, of: n)
        let p95 = try overallPercentile(95, of: n)

        let pushes = try readPushes(only: nil, limit: 12)
        return DashboardSnapshot(
            totalReceipts: t?.0 ?? 0, delivered: t?.1 ?? 0, opened: t?.2 ?? 0, mediaAttached: t?.3 ?? 0, withOutcome: t?.4 ?? 0,
            sent: s.0, accepted: s.1, bucketSeconds: bucketSeconds, timeline: timeline, reasons: reasons, timing: timing,
            p50Ms: p50, p95Ms: p95, pushes: pushes
        )
    }

    private func overallPercentile(_ percent: Double, of count: Int) throws -> Int? {
        guard count > 0 else { return nil }
        let rank = max(1, Int((percent / 100 * Double(count)).rounded(.up)))
        let q = try reader.prepared(
            "SELECT elapsed_ms FROM receipts WHERE event = 'delivered' AND elapsed_ms IS NOT NULL ORDER BY elapsed_ms LIMIT 1 OFFSET ?"
        )
        try q.bind([.integer(rank - 1)])
        return try q.rows { $0.int(0) }.first ?? nil
    }

    /// Milliseconds since 1970 as ISO 8601 UTC with milliseconds, e.g. `2026-11-30T03:27:32.120Z`.
    static func iso8601(_ ms: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}
