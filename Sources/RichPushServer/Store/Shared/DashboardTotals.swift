import Foundation

/// The dashboard's running totals as both stores keep them (the `totals` summary; on PostgreSQL
/// its slots summed), and the arithmetic that turns them and the other summaries into a
/// `DashboardSnapshot` — once, for `SQLiteStore` and `PostgresStore` alike.
struct DashboardTotals {
    /// All distinct receipts, both events.
    var receipts = 0
    var delivered = 0
    var opened = 0
    var mediaAttached = 0
    var withOutcome = 0
    var withReason = 0
    var sent = 0
    var accepted = 0
    /// Delivered receipts of the pushes that have sends (the display rate's numerator).
    var deliveredOfSentPushes = 0
    var pushes = 0
    /// The first and last receipt, ms since 1970; `nil` without receipts.
    var firstReceiptMs: Int?
    var lastReceiptMs: Int?

    /// The receipts-over-time chart for `query`: its plan and the last instant shown (ms since
    /// 1970, inclusive); `nil` without receipts in the range.
    ///
    /// - Parameter query: the chart's range and most bars.
    /// - Returns: the plan (which stored width to read, from `originMs` to `toMs`).
    func timelinePlan(_ query: DashboardQuery) -> (plan: TimelinePlan, toMs: Int)? {
        guard let first = firstReceiptMs, let last = lastReceiptMs else { return nil }
        let from = max(first, query.fromMs ?? first)
        let to = min(last, (query.toMs ?? Int.max) - 1)
        guard from <= to else { return nil }
        return (TimelinePlan.plan(fromMs: from, toMs: to, maximumBuckets: query.maximumBuckets, newestMs: last), to)
    }

    /// The snapshot.
    ///
    /// - Parameters:
    ///   - timeline: the plan the bars were read with (`nil`: no chart) and the stored rows of its
    ///     source width, `(bucket start ms, delivered, opened)`.
    ///   - reasons: delivered receipts per reason, most first (at most 9).
    ///   - distribution: `elapsed_ms` → delivered receipts, ascending.
    ///   - pushes: the newest pushes.
    /// - Returns: the dashboard's data.
    func snapshot(
        timeline: (plan: TimelinePlan, rows: [(bucketMs: Int, delivered: Int, opened: Int)])?, reasons: [(reason: String, count: Int)],
        distribution: [(value: Int, count: Int)], pushes: [PushStatistics]
    ) -> DashboardSnapshot {
        var snapshot = DashboardSnapshot(
            totalReceipts: receipts, delivered: delivered, opened: opened, mediaAttached: mediaAttached, withOutcome: withOutcome,
            sent: sent, accepted: accepted, deliveredOfSentPushes: deliveredOfSentPushes, bucketSeconds: timeline?.plan.bucketSeconds ?? 60,
            timeline: timeline.map { $0.plan.bars($0.rows) } ?? [], reasons: reasons, timing: DashboardSnapshot.timingHistogram(distribution),
            p50Ms: PushStatistics.percentile(distribution, 50), p95Ms: PushStatistics.percentile(distribution, 95),
            pushes: pushes, totalPushes: self.pushes
        )
        snapshot.withReason = withReason
        snapshot.firstReceiptMs = firstReceiptMs
        snapshot.lastReceiptMs = lastReceiptMs
        return snapshot
    }
}
