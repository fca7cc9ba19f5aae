import Foundation

/// What the dashboard's charts cover: the time range of the receipts-over-time chart and how many
/// bars it may have at most.
public struct DashboardQuery: Sendable, Equatable {
    /// The most timeline bars (the bar width is chosen from 1 s … 30 days so the range fits).
    public var maximumBuckets: Int
    /// The chart's start, ms since 1970; `nil` = the first receipt.
    public var fromMs: Int?
    /// The chart's end (exclusive), ms since 1970; `nil` = the last receipt.
    public var toMs: Int?

    /// Makes a query.
    ///
    /// - Parameters:
    ///   - maximumBuckets: the most timeline bars (at least 1).
    ///   - fromMs: the range's start, or `nil`.
    ///   - toMs: the range's end (exclusive), or `nil`.
    public init(maximumBuckets: Int = 60, fromMs: Int? = nil, toMs: Int? = nil) {
        self.maximumBuckets = max(1, maximumBuckets)
        self.fromMs = fromMs
        self.toMs = toMs
    }
}
