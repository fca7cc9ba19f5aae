import Foundation
import RichPushCore

/// The read side (`StatisticsStore`): each read runs in one read transaction on a connection
/// of the reader pool, and touches a bounded number of rows — one page of `push_index` through its
/// index, point lookups per push shown, and the summaries — whatever the store holds.
extension SQLiteStore {
    /// One page of pushes (see `StatisticsStore.pushes(_:)`).
    public func pushes(_ query: PushQuery) throws -> PushPage {
        try reading { try readPage($0, query) }
    }

    /// One push's figures (see `StatisticsStore.push(_:)`).
    public func push(_ pushID: String) throws -> PushStatistics? {
        try reading { try readPush($0, pushID)?.statistics }
    }

    /// The per-push page's data (see `StatisticsStore.pushDetail(_:)`).
    public func pushDetail(_ pushID: String) throws -> PushDetail? {
        try reading { db in
            guard let row = try readPush(db, pushID) else { return nil }
            let outcomes = try db.prepared(
                "SELECT COALESCE(outcome, ''), COUNT(*) FROM push_tokens WHERE push_id = ? GROUP BY 1 ORDER BY 2 DESC, 1"
            )
            try outcomes.bind([.text(pushID)])
            let tokenOutcomes = try outcomes.rows { (outcome: $0.text(0).flatMap { $0.isEmpty ? nil : $0 } ?? "unknown", count: $0.int(1) ?? 0) }
            let reasons = row.statistics.reasons.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { (reason: $0.key, count: $0.value) }
            return PushDetail(
                statistics: row.statistics, title: row.title, firstSentMs: row.firstSentMs, lastSentMs: row.lastSentMs,
                tokenOutcomes: tokenOutcomes, reasons: reasons, timing: Self.histogram(row.distribution)
            )
        }
    }

    /// What APNs last said about a device token (`device_tokens`), `nil` when nothing is recorded
    /// (never sent, or accepted since).
    ///
    /// - Parameter deviceToken: the hex token as it was sent.
    /// - Returns: the state (`inactive` or `bad`), APNs' reason, and for 410 since when (ms since 1970).
    /// - Throws: `RichPushError` `store`.
    public func deviceTokenState(_ deviceToken: String) throws -> (state: PushSendRecord.TokenState, reason: String?, sinceMs: Int?)? {
        try readers.withConnection { db in
            let query = try db.prepared("SELECT state, reason, since_ms FROM device_tokens WHERE device_token = ?")
            try query.bind([.text(deviceToken)])
            return try query.rows { (state: PushSendRecord.TokenState(rawValue: $0.text(0) ?? ""), reason: $0.text(1), sinceMs: $0.int(2)) }.first
        }
    }

    /// The dashboard snapshot from the summaries (see `StatisticsStore.dashboard(_:)`).
    public func dashboard(_ query: DashboardQuery) throws -> DashboardSnapshot {
        try reading { db in
            let totalsQuery = try db.prepared(
                """
                SELECT receipts, delivered, opened, media_attached, with_outcome, with_reason, sent, accepted,
                  delivered_of_sent, pushes, first_receipt_ms, last_receipt_ms FROM totals WHERE id = 1
                """
            )
            let t = try totalsQuery.rows { s in (0..<12).map { s.int(Int32($0)) } }.first ?? Array(repeating: nil, count: 12)
            let first = t[10], last = t[11]

            var bucketSeconds = 60
            var timeline: [DashboardSnapshot.TimeBucket] = []
            if let first, let last {
                let from = max(first, query.fromMs ?? first)
                let to = min(last, (query.toMs ?? Int.max) - 1)
                if from <= to {
                    let plan = TimelinePlan.plan(fromMs: from, toMs: to, maximumBuckets: query.maximumBuckets, newestMs: last)
                    bucketSeconds = plan.bucketSeconds
                    let widthMs = plan.bucketSeconds * 1000
                    timeline = (0..<plan.count).map { DashboardSnapshot.TimeBucket(startMs: plan.originMs + $0 * widthMs, delivered: 0, opened: 0) }
                    let rows = try db.prepared(
                        "SELECT bucket_ms, delivered, opened FROM timeline WHERE width_ms = ? AND bucket_ms >= ? AND bucket_ms <= ? ORDER BY bucket_ms"
                    )
                    try rows.bind([.integer(plan.sourceWidthMs), .integer(plan.originMs), .integer(to)])
                    for (bucket, delivered, opened) in try rows.rows({ ($0.int(0) ?? 0, $0.int(1) ?? 0, $0.int(2) ?? 0) }) {
                        let index = (bucket - plan.originMs) / widthMs
                        guard timeline.indices.contains(index) else { continue }
                        timeline[index].delivered += delivered
                        timeline[index].opened += opened
                    }
                }
            }

            let reasons = try db.prepared("SELECT reason, receipts FROM reason_totals ORDER BY receipts DESC, reason LIMIT 9")
                .rows { (reason: $0.text(0) ?? "", count: $0.int(1) ?? 0) }
            let distribution = try db.prepared("SELECT elapsed_ms, receipts FROM elapsed_totals ORDER BY elapsed_ms")
                .rows { (value: $0.int(0) ?? 0, count: $0.int(1) ?? 0) }
            let newest = try readPage(db, PushQuery(limit: 12))
            var snapshot = DashboardSnapshot(
                totalReceipts: t[0] ?? 0, delivered: t[1] ?? 0, opened: t[2] ?? 0, mediaAttached: t[3] ?? 0, withOutcome: t[4] ?? 0,
                sent: t[6] ?? 0, accepted: t[7] ?? 0, deliveredOfSentPushes: t[8] ?? 0, bucketSeconds: bucketSeconds, timeline: timeline,
                reasons: reasons, timing: Self.histogram(distribution),
                p50Ms: PushStatistics.percentile(distribution, 50), p95Ms: PushStatistics.percentile(distribution, 95),
                pushes: newest.pushes, totalPushes: t[9] ?? 0
            )
            snapshot.withReason = t[5] ?? 0
            snapshot.firstReceiptMs = first
            snapshot.lastReceiptMs = last
            return snapshot
        }
    }

    // MARK: Private

    /// What one push's rows say.
    private struct PushRow {
        var statistics: PushStatistics
        var title: String?
        var firstSentMs: Int?
        var lastSentMs: Int?
        var distribution: [(value: Int, count: Int)]
    }

    /// Runs `body` in one read transaction on a read connection of its own.
    func reading<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try readers.withConnection { db in
            try db.execute("BEGIN")
            defer { try? db.execute("COMMIT") }
            return try body(db)
        }
    }

    /// A page of push ids from `push_index` (an index range scan of `limit` + 1 rows), then each
    /// push's figures by point lookups.
    private func readPage(_ db: SQLiteConnection, _ query: PushQuery) throws -> PushPage {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let prefix = query.prefix {
            // Every id with the prefix sorts in [prefix, prefix + U+10FFFF): U+10FFFF is a
            // noncharacter, which ids may not hold (IdentifierRule).
            conditions.append("push_id >= ? AND push_id < ?")
            values += [.text(prefix), .text(prefix + "\u{10FFFF}")]
        }
        let byID = query.ordersByID
        var forward = true
        // In time order a cursor and the range bound on the same side are one bound: only the
        // tighter is written, so the index seek starts at it (never scans from the range's edge
        // down to the cursor).
        var lower: (sql: String, values: [SQLiteValue])? = query.startedFromMs.map { ("started_ms >= ?", [.integer($0)]) }
        var upper: (sql: String, values: [SQLiteValue])? = query.startedBeforeMs.map { ("started_ms < ?", [.integer($0)]) }
        switch query.position {
        case .first:
            break
        case .after(let cursor):
            if byID {
                conditions.append("push_id > ?")
                values.append(.text(cursor.pushID))
            } else {
                let ms = cursor.startedMs ?? Int.max
                if query.startedBeforeMs.map({ $0 > ms }) ?? true {
                    upper = ("(started_ms, push_id) < (?, ?)", [.integer(ms), .text(cursor.pushID)])
                }
            }
        case .before(let cursor):
            forward = false
            if byID {
                conditions.append("push_id < ?")
                values.append(.text(cursor.pushID))
            } else {
                let ms = cursor.startedMs ?? Int.max
                if query.startedFromMs.map({ $0 <= ms }) ?? true {
                    lower = ("(started_ms, push_id) > (?, ?)", [.integer(ms), .text(cursor.pushID)])
                }
            }
        }
        for bound in [lower, upper].compactMap({ $0 }) {
            conditions.append(bound.sql)
            values += bound.values
        }
        let order: String
        if byID {
            order = forward ? "push_id ASC" : "push_id DESC"
        } else {
            order = forward ? "started_ms DESC, push_id DESC" : "started_ms ASC, push_id ASC"
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let select = try db.prepared("SELECT push_id, started_ms FROM push_index \(filter) ORDER BY \(order) LIMIT ?")
        try select.bind(values + [.integer(query.limit + 1)])
        var rows = try select.rows { (id: $0.text(0) ?? "", started: $0.int(1) ?? 0) }
        let more = rows.count > query.limit
        if more { rows.removeLast() }
        if !forward { rows.reverse() }
        func cursor(_ row: (id: String, started: Int)) -> PushCursor { PushCursor(startedMs: byID ? nil : row.started, pushID: row.id) }
        let next: PushCursor?
        let previous: PushCursor?
        if forward {
            next = more ? rows.last.map(cursor) : nil
            if case .first = query.position { previous = nil } else { previous = rows.first.map(cursor) }
        } else {
            next = rows.last.map(cursor)
            previous = more ? rows.first.map(cursor) : nil
        }
        var pushes: [PushStatistics] = []
        pushes.reserveCapacity(rows.count)
        for row in rows {
            if let push = try readPush(db, row.id) { pushes.append(push.statistics) }
        }
        return PushPage(pushes: pushes, next: next, previous: previous)
    }

    /// One push's figures from its `push_counts`, `pushes` and `push_elapsed` rows (point lookups
    /// on the keys that lead with `push_id`); `nil` when none exist.
    private func readPush(_ db: SQLiteConnection, _ pushID: String) throws -> PushRow? {
        var delivered = 0, opened = 0, mediaBytes = 0
        var first: Int?, last: Int?
        var outcomes: [String: Int] = [:], reasons: [String: Int] = [:]
        let counts = try db.prepared(
            "SELECT event, outcome, reason, receipts, media_bytes, first_ms, last_ms FROM push_counts WHERE push_id = ?"
        )
        try counts.bind([.text(pushID)])
        let countRows = try counts.rows { s in
            (s.text(0) ?? "", s.text(1) ?? "", s.text(2) ?? "", s.int(3) ?? 0, s.int(4) ?? 0, s.int(5) ?? 0, s.int(6) ?? 0)
        }
        for (event, outcome, reason, n, bytes, lo, hi) in countRows {
            if event == Receipt.Event.delivered.rawValue {
                delivered += n
                mediaBytes += bytes
                if !outcome.isEmpty { outcomes[outcome, default: 0] += n }
                if !reason.isEmpty { reasons[reason, default: 0] += n }
            } else if event == Receipt.Event.opened.rawValue {
                opened += n
            }
            first = min(first ?? lo, lo)
            last = max(last ?? hi, hi)
        }
        let sends = try db.prepared("SELECT sent, accepted, first_sent_at_ms, last_sent_at_ms, title, skipped FROM pushes WHERE push_id = ?")
        try sends.bind([.text(pushID)])
        let send = try sends.rows { ($0.int(0), $0.int(1), $0.int(2), $0.int(3), $0.text(4), $0.int(5)) }.first
        var sources: [String] = []
        if send != nil {
            let batches = try db.prepared("SELECT DISTINCT source FROM push_send_batches WHERE push_id = ? ORDER BY source")
            try batches.bind([.text(pushID)])
            sources = try batches.rows { $0.text(0) ?? "" }
        }
        guard !countRows.isEmpty || send != nil else { return nil }
        if countRows.isEmpty {
            first = send?.2
            last = send?.3
        }
        let elapsed = try db.prepared("SELECT elapsed_ms, receipts FROM push_elapsed WHERE push_id = ? ORDER BY elapsed_ms")
        try elapsed.bind([.text(pushID)])
        let distribution = try elapsed.rows { (value: $0.int(0) ?? 0, count: $0.int(1) ?? 0) }
        let statistics = PushStatistics(
            pushID: pushID, sent: send?.0, accepted: send?.1, delivered: delivered, opened: opened,
            outcomes: outcomes, reasons: reasons, mediaBytes: mediaBytes,
            elapsedMs: .init(
                count: distribution.map(\.count).reduce(0, +), p50: PushStatistics.percentile(distribution, 50),
                p95: PushStatistics.percentile(distribution, 95)),
            firstSeen: first.map(Self.iso8601), lastSeen: last.map(Self.iso8601),
            skipped: send?.5, sources: sources
        )
        return PushRow(statistics: statistics, title: send?.4, firstSentMs: send?.2, lastSentMs: send?.3, distribution: distribution)
    }

    /// The timing histogram (`DashboardSnapshot.timingEdgesMs`) of a distribution.
    static func histogram(_ distribution: [(value: Int, count: Int)]) -> [DashboardSnapshot.TimingBucket] {
        let edges = DashboardSnapshot.timingEdgesMs
        var timing = edges.indices.map { i in
            DashboardSnapshot.TimingBucket(lowerMs: edges[i], upperMs: i + 1 < edges.count ? edges[i + 1] : nil, count: 0)
        }
        for (value, count) in distribution {
            let index = (edges.lastIndex { $0 <= value }) ?? 0
            timing[index].count += count
        }
        return timing
    }
}
