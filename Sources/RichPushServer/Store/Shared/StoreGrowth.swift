/// How big a store is, for `/metrics` (`richpush_store_rows`, `richpush_store_bytes`): the rows
/// anonymous requests create and the bytes on disk.
public struct StoreGrowth: Sendable, Equatable {
    /// Receipts stored (the summaries' count, not a scan).
    public var receipts: Int
    /// Pushes known (`push_index`).
    public var pushes: Int
    /// Registered devices (SQLite: the highest rowid, an upper bound; PostgreSQL: the planner's
    /// estimate, `pg_class.reltuples`).
    public var devices: Int
    /// Bytes on disk: SQLite `page_count × page_size` plus the WAL file; PostgreSQL
    /// `pg_database_size(current_database())`.
    public var bytes: Int

    /// Makes figures.
    ///
    /// - Parameters:
    ///   - receipts: receipts stored.
    ///   - pushes: pushes known.
    ///   - devices: devices registered.
    ///   - bytes: bytes on disk.
    public init(receipts: Int, pushes: Int, devices: Int, bytes: Int) {
        self.receipts = receipts
        self.pushes = pushes
        self.devices = devices
        self.bytes = bytes
    }
}
