import Foundation

/// The read side of the store: figures per push and for the dashboard.
public protocol StatisticsStore: AnyObject, Sendable {
    /// Figures for every push, most recently seen first.
    ///
    /// - Parameter limit: the most pushes to return (1…1000).
    /// - Returns: one entry per push.
    /// - Throws: `RichPushError` `store`.
    func pushes(limit: Int) throws -> [PushStatistics]

    /// Figures for one push.
    ///
    /// - Parameter pushID: the push.
    /// - Returns: its figures, or `nil` when nothing is known about it.
    /// - Throws: `RichPushError` `store`.
    func push(_ pushID: String) throws -> PushStatistics?

    /// Everything the dashboard draws, in one consistent read.
    ///
    /// - Parameter maximumBuckets: the most time buckets for the timeline (the bucket width is
    ///   chosen from 1 s … 1 day so the data's range fits).
    /// - Returns: the snapshot.
    /// - Throws: `RichPushError` `store`.
    func dashboard(maximumBuckets: Int) throws -> DashboardSnapshot
}
