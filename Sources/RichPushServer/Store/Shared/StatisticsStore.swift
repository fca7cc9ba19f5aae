import Foundation

/// The read side of the store: figures per push and for the dashboard.
///
/// Every read costs the same whether the store knows a thousand pushes or millions: lists are
/// index range scans of one page (keyset pagination, `PushQuery`), and the dashboard's totals,
/// reasons, timing and timeline come from summaries the write side keeps up to date in the same
/// transaction as the receipts and sends they count.
public protocol StatisticsStore: MediaStore {
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

    /// What a provider last said about a device token: inactive or bad, why and since when;
    /// `nil` when nothing marks it (never sent, or accepted since).
    ///
    /// - Parameter deviceToken: the token.
    /// - Returns: the state, or `nil`.
    /// - Throws: `RichPushError` `store`.
    func deviceTokenState(_ deviceToken: String) throws -> (state: PushSendRecord.TokenState, reason: String?, sinceMs: Int?)?

    /// Whether the store can lose its database while the server runs (PostgreSQL) and reports
    /// it through `health()`; `/metrics` then shows `richpush_store_up`. Default `false` (the
    /// embedded SQLite file).
    var reportsHealth: Bool { get }

    /// The store's current health; cheap enough for a load balancer to poll (implementations
    /// probe the database at most about once per second and answer from memory in between).
    ///
    /// - Returns: available, or unavailable with a reason. Default: available.
    func health() -> StoreHealth

    /// Whether the store knows a push (`push_index`: receipts or sends recorded): the
    /// per-address budget's check, made only for an address past its budget. Default: `push(_:)`.
    ///
    /// - Parameter pushID: the push.
    /// - Returns: `true` when known.
    /// - Throws: `RichPushError` `store`.
    func pushExists(_ pushID: String) throws -> Bool

    /// How big the store is (`/metrics`' growth gauges; see `StoreGrowth`).
    ///
    /// - Returns: rows and bytes, `nil` when the store cannot tell.
    /// - Throws: `RichPushError` `store`.
    func growth() throws -> StoreGrowth?

    /// Unknown outcome and reason codes stored as `other` since the store opened (`CodeFolding`).
    var foldedCodes: Int { get }
}

extension StatisticsStore {
    /// Default: the store cannot lose its database.
    public var reportsHealth: Bool { false }
    /// Default: always available.
    public func health() -> StoreHealth { .available }

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
