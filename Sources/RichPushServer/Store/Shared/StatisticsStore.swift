import Foundation

/// The read side of the store: figures per push and for the dashboard.
///
/// Every read costs the same whether the store knows a thousand pushes or millions: lists are
/// index range scans of one page (keyset pagination, `PushQuery`), and the dashboard's totals,
/// reasons, timing and timeline come from summaries the write side keeps up to date in the same
/// transaction as the receipts and sends they count.
public protocol StatisticsStore: AnyObject, Sendable {
    /// One page of pushes (see `PushQuery` for the order and filters).
    ///
    /// - Parameter query: the page, filters and size.
    /// - Returns: the pushes with the cursors of the pages before and after.
    /// - Throws: `RichPushError` `store`.
    func pushes(_ query: PushQuery) throws -> PushPage

    /// Figures for one push.
    ///
    /// - Parameter pushID: the push.
    /// - Returns: its figures, or `nil` when nothing is known about it.
    /// - Throws: `RichPushError` `store`.
    func push(_ pushID: String) throws -> PushStatistics?

    /// Everything the per-push page shows.
    ///
    /// - Parameter pushID: the push.
    /// - Returns: the detail, or `nil` when nothing is known about the push.
    /// - Throws: `RichPushError` `store`.
    func pushDetail(_ pushID: String) throws -> PushDetail?

    /// Everything the dashboard draws, in one consistent read.
    ///
    /// - Parameter query: the timeline's range and bar count.
    /// - Returns: the snapshot (`pushes` holds the 12 newest).
    /// - Throws: `RichPushError` `store`.
    func dashboard(_ query: DashboardQuery) throws -> DashboardSnapshot
}

extension StatisticsStore {
    /// Figures for the newest pushes.
    ///
    /// - Parameter limit: the most pushes to return (1…1000).
    /// - Returns: one entry per push, newest first.
    /// - Throws: `RichPushError` `store`.
    public func pushes(limit: Int) throws -> [PushStatistics] {
        try pushes(PushQuery(limit: limit)).pushes
    }

    /// The dashboard over all receipts.
    ///
    /// - Parameter maximumBuckets: the most timeline bars.
    /// - Returns: the snapshot.
    /// - Throws: `RichPushError` `store`.
    public func dashboard(maximumBuckets: Int) throws -> DashboardSnapshot {
        try dashboard(DashboardQuery(maximumBuckets: maximumBuckets))
    }
}
