import Foundation
import RichPushCore

/// The reads in PostgreSQL (`StatisticsStore`), each in one snapshot: pages, pushes, push
/// details, device-token states, the dashboard.
extension PostgresStore {
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
                tokenOutcomes: outcomes.rows {
                    (outcome: outcomes.text($0, 0).flatMap { $0.isEmpty ? nil : $0 } ?? "not_reported", count: outcomes.int($0, 1) ?? 0)
                }
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
