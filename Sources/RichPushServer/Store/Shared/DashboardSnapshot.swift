import Foundation

/// Everything the dashboard draws, read from the store in one go.
public struct DashboardSnapshot: Sendable, Equatable {
    /// One bar of the "receipts over time" chart.
    public struct TimeBucket: Sendable, Equatable {
        /// Bucket start, milliseconds since 1970.
        public var startMs: Int
        /// `delivered` receipts in the bucket.
        public var delivered: Int
        /// `opened` receipts in the bucket.
        public var opened: Int
    }

    /// One bar of the extension timing histogram.
    public struct TimingBucket: Sendable, Equatable {
        /// Lower bound, inclusive, in ms.
        public var lowerMs: Int
        /// Upper bound, exclusive, in ms; `nil` = no upper bound.
        public var upperMs: Int?
        /// Delivered receipts whose `elapsed_ms` falls in the bucket.
        public var count: Int
    }

    /// All receipts stored (both events).
    public var totalReceipts: Int
    /// `delivered` receipts.
    public var delivered: Int
    /// `opened` receipts.
    public var opened: Int
    /// Delivered receipts with `outcome=media_attached`.
    public var mediaAttached: Int
    /// Delivered receipts that named an outcome.
    public var withOutcome: Int
    /// Tokens sent to and accepted, over all pushes (0 until the provider side records sends).
    public var sent: Int
    /// See `sent`.
    public var accepted: Int
    /// Delivered receipts of the pushes that have sent counts: the display rate's numerator
    /// (delivered / accepted), so receipts of pushes sent elsewhere do not inflate it.
    public var deliveredOfSentPushes: Int = 0
    /// Width of a timeline bucket, in seconds.
    public var bucketSeconds: Int
    /// The timeline, oldest first, gaps filled with zeros.
    public var timeline: [TimeBucket]
    /// Delivered receipts per reason, most frequent first (the 9 most frequent).
    public var reasons: [(reason: String, count: Int)]
    /// Delivered receipts that named a reason (all reasons, not only those in `reasons`).
    public var withReason: Int = 0
    /// The first and last receipt's arrival, ms since 1970; `nil` without receipts.
    public var firstReceiptMs: Int?
    /// See `firstReceiptMs`.
    public var lastReceiptMs: Int?
    /// `elapsed_ms` histogram over delivered receipts.
    public var timing: [TimingBucket]
    /// Overall `elapsed_ms` p50, p95, in ms.
    public var p50Ms: Int?
    /// See `p50Ms`.
    public var p95Ms: Int?
    /// The newest pushes (up to 12).
    public var pushes: [PushStatistics]
    /// All pushes the store knows (with receipts or sends), so the page can say how many of
    /// them `pushes` shows.
    public var totalPushes: Int = 0

    /// The histogram's bucket edges in ms (the extension's budget is about 30 s: Apple).
    public static let timingEdgesMs = [0, 100, 250, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 30_000]

    /// The timing histogram (`timingEdgesMs`) of a distribution.
    ///
    /// - Parameter distribution: `elapsed_ms` → delivered receipts.
    /// - Returns: one bucket per edge; a value below the first edge counts in the first.
    static func timingHistogram(_ distribution: [(value: Int, count: Int)]) -> [TimingBucket] {
        let edges = timingEdgesMs
        var timing = edges.indices.map { i in TimingBucket(lowerMs: edges[i], upperMs: i + 1 < edges.count ? edges[i + 1] : nil, count: 0) }
        for (value, count) in distribution {
            let index = (edges.lastIndex { $0 <= value }) ?? 0
            timing[index].count += count
        }
        return timing
    }

    public static func == (a: DashboardSnapshot, b: DashboardSnapshot) -> Bool {
        a.totalReceipts == b.totalReceipts && a.delivered == b.delivered && a.opened == b.opened
            && a.mediaAttached == b.mediaAttached && a.timeline == b.timeline && a.timing == b.timing
            && a.reasons.map(\.reason) == b.reasons.map(\.reason) && a.reasons.map(\.count) == b.reasons.map(\.count)
            && a.pushes == b.pushes && a.sent == b.sent && a.accepted == b.accepted
            && a.deliveredOfSentPushes == b.deliveredOfSentPushes && a.totalPushes == b.totalPushes
            && a.withReason == b.withReason && a.firstReceiptMs == b.firstReceiptMs && a.lastReceiptMs == b.lastReceiptMs
            && a.bucketSeconds == b.bucketSeconds && a.p50Ms == b.p50Ms && a.p95Ms == b.p95Ms && a.withOutcome == b.withOutcome
    }
}
