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
            return row.detail(
                tokenOutcomes: try outcomes.rows { (outcome: $0.text(0).flatMap { $0.isEmpty ? nil : $0 } ?? "not_reported", count: $0.int(1) ?? 0) })
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

    /// The dashboard snapshot from the summaries (see `StatisticsStore.dashboard(_:)`); the
    /// arithmetic is `DashboardTotals`', shared with `PostgresStore`.
    public func dashboard(_ query: DashboardQuery) throws -> DashboardSnapshot {
        try reading { db in
            let totalsQuery = try db.prepared(
                """
                SELECT receipts, delivered, opened, media_attached, with_outcome, with_reason, sent, accepted,
                  delivered_of_sent, pushes, first_receipt_ms, last_receipt_ms FROM totals WHERE id = 1
                """
            )
            let t = try totalsQuery.rows { s in (0..<12).map { s.int(Int32($0)) } }.first ?? Array(repeating: nil, count: 12)
            let totals = DashboardTotals(
                receipts: t[0] ?? 0, delivered: t[1] ?? 0, opened: t[2] ?? 0, mediaAttached: t[3] ?? 0, withOutcome: t[4] ?? 0,
                withReason: t[5] ?? 0, sent: t[6] ?? 0, accepted: t[7] ?? 0, deliveredOfSentPushes: t[8] ?? 0, pushes: t[9] ?? 0,
                firstReceiptMs: t[10], lastReceiptMs: t[11])
            var timeline: (plan: TimelinePlan, rows: [(bucketMs: Int, delivered: Int, opened: Int)])?
            if let (plan, to) = totals.timelinePlan(query) {
                let rows = try db.prepared(
                    "SELECT bucket_ms, delivered, opened FROM timeline WHERE width_ms = ? AND bucket_ms >= ? AND bucket_ms <= ? ORDER BY bucket_ms"
                )
                try rows.bind([.integer(plan.sourceWidthMs), .integer(plan.originMs), .integer(to)])
                timeline = (plan, try rows.rows { (bucketMs: $0.int(0) ?? 0, delivered: $0.int(1) ?? 0, opened: $0.int(2) ?? 0) })
            }
            let reasons = try db.prepared("SELECT reason, receipts FROM reason_totals ORDER BY receipts DESC, reason LIMIT 9")
                .rows { (reason: $0.text(0) ?? "", count: $0.int(1) ?? 0) }
            let distribution = try db.prepared("SELECT elapsed_ms, receipts FROM elapsed_totals ORDER BY elapsed_ms")
                .rows { (value: $0.int(0) ?? 0, count: $0.int(1) ?? 0) }
            let newest = try readPage(db, PushQuery(limit: 12))
            return totals.snapshot(timeline: timeline, reasons: reasons, distribution: distribution, pushes: newest.pushes)
        }
    }

    // MARK: Private

    /// Runs `body` in one read transaction on a read connection of its own.
    func reading<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try readers.withConnection { db in
            try db.execute("BEGIN")
            defer { try? db.execute("COMMIT") }
            return try body(db)
        }
    }

    /// A page of push ids from `push_index` (an index range scan of `limit` + 1 rows, planned by
    /// `PushPagePlan`), then each push's figures by point lookups.
    private func readPage(_ db: SQLiteConnection, _ query: PushQuery) throws -> PushPage {
        let plan = PushPagePlan(query)
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let range = plan.prefixRange {
            conditions.append("push_id >= ? AND push_id < ?")
            values += [.text(range.lower), .text(range.upper)]
        }
        if let id = plan.idAfter {
            conditions.append("push_id > ?")
            values.append(.text(id))
        }
        if let id = plan.idBefore {
            conditions.append("push_id < ?")
            values.append(.text(id))
        }
        for (bound, range, row) in [(plan.lower, ">=", ">"), (plan.upper, "<", "<")] {
            switch bound {
            case .range(let ms)?:
                conditions.append("started_ms \(range) ?")
                values.append(.integer(ms))
            case .cursor(let ms, let id)?:
                conditions.append("(started_ms, push_id) \(row) (?, ?)")
                values += [.integer(ms), .text(id)]
            case nil:
                break
            }
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let select = try db.prepared("SELECT push_id, started_ms FROM push_index \(filter) ORDER BY \(plan.order) LIMIT ?")
        try select.bind(values + [.integer(plan.fetchLimit)])
        let page = plan.page(try select.rows { (id: $0.text(0) ?? "", started: $0.int(1) ?? 0) })
        var pushes: [PushStatistics] = []
        pushes.reserveCapacity(page.ids.count)
        for id in page.ids {
            if let push = try readPush(db, id) { pushes.append(push.statistics) }
        }
        return PushPage(pushes: pushes, next: page.next, previous: page.previous)
    }

    /// One push's figures from its `push_counts`, `pushes` and `push_elapsed` rows (point lookups
    /// on the keys that lead with `push_id`; the arithmetic is `PushRow`'s); `nil` when none exist.
    private func readPush(_ db: SQLiteConnection, _ pushID: String) throws -> PushRow? {
        let counts = try db.prepared(
            "SELECT event, outcome, reason, receipts, media_bytes, first_ms, last_ms FROM push_counts WHERE push_id = ?"
        )
        try counts.bind([.text(pushID)])
        let countRows = try counts.rows { s in
            (
                event: s.text(0) ?? "", outcome: s.text(1) ?? "", reason: s.text(2) ?? "", receipts: s.int(3) ?? 0, bytes: s.int(4) ?? 0,
                first: s.int(5) ?? 0, last: s.int(6) ?? 0
            )
        }
        let receipts =
            countRows.isEmpty
            ? nil
            : countRows.reduce(into: PushRow.Counts()) {
                $0.add(event: $1.event, outcome: $1.outcome, reason: $1.reason, receipts: $1.receipts, mediaBytes: $1.bytes, firstMs: $1.first, lastMs: $1.last)
            }
        let sends = try db.prepared("SELECT sent, accepted, first_sent_at_ms, last_sent_at_ms, title, skipped FROM pushes WHERE push_id = ?")
        try sends.bind([.text(pushID)])
        let send = try sends.rows {
            PushRow.Send(sent: $0.int(0), accepted: $0.int(1), firstSentMs: $0.int(2), lastSentMs: $0.int(3), title: $0.text(4), skipped: $0.int(5))
        }.first
        var sources: [String] = []
        if send != nil {
            let batches = try db.prepared("SELECT DISTINCT source FROM push_send_batches WHERE push_id = ? ORDER BY source")
            try batches.bind([.text(pushID)])
            sources = try batches.rows { $0.text(0) ?? "" }
        }
        guard receipts != nil || send != nil else { return nil }
        let elapsed = try db.prepared("SELECT elapsed_ms, receipts FROM push_elapsed WHERE push_id = ? ORDER BY elapsed_ms")
        try elapsed.bind([.text(pushID)])
        let distribution = try elapsed.rows { (value: $0.int(0) ?? 0, count: $0.int(1) ?? 0) }
        return PushRow(pushID: pushID, counts: receipts, send: send, sources: sources, distribution: distribution)
    }
}
