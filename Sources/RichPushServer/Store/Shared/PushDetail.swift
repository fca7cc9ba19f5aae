import Foundation

/// Everything the per-push page shows: the figures, the send, the device tokens' outcomes, and
/// the extension's timing distribution for this push.
public struct PushDetail: Sendable, Equatable {
    /// The push's figures (as `GET /v1/pushes/{push_id}`).
    public var statistics: PushStatistics
    /// The alert title recorded with the send, if any.
    public var title: String?
    /// The first and last send, ms since 1970; `nil` without a recorded send.
    public var firstSentMs: Int?
    /// See `firstSentMs`.
    public var lastSentMs: Int?
    /// Device tokens per provider outcome (`accepted`, `token_inactive`, `token_bad`, …), most first.
    public var tokenOutcomes: [(outcome: String, count: Int)]
    /// Delivered receipts per reason, most first.
    public var reasons: [(reason: String, count: Int)]
    /// The `elapsed_ms` histogram of this push's delivered receipts (`DashboardSnapshot.timingEdgesMs`).
    public var timing: [DashboardSnapshot.TimingBucket]

    /// Makes a detail.
    public init(
        statistics: PushStatistics, title: String?, firstSentMs: Int?, lastSentMs: Int?,
        tokenOutcomes: [(outcome: String, count: Int)], reasons: [(reason: String, count: Int)], timing: [DashboardSnapshot.TimingBucket]
    ) {
        self.statistics = statistics
        self.title = title
        self.firstSentMs = firstSentMs
        self.lastSentMs = lastSentMs
        self.tokenOutcomes = tokenOutcomes
        self.reasons = reasons
        self.timing = timing
    }

    public static func == (a: PushDetail, b: PushDetail) -> Bool {
        a.statistics == b.statistics && a.title == b.title && a.firstSentMs == b.firstSentMs && a.lastSentMs == b.lastSentMs
            && a.tokenOutcomes.map(\.outcome) == b.tokenOutcomes.map(\.outcome) && a.tokenOutcomes.map(\.count) == b.tokenOutcomes.map(\.count)
            && a.reasons.map(\.reason) == b.reasons.map(\.reason) && a.reasons.map(\.count) == b.reasons.map(\.count)
            && a.timing == b.timing
    }
}
