/// A `ReceiptStore` that stores several batches at the same time (PostgreSQL: one connection per
/// batch; its `insert(_:)` is durable when it returns, so `syncCommitted()` has nothing to do).
///
/// `ReceiptWriter` runs `concurrentBatches` writer threads for it. Stores without this (SQLite:
/// one writer, its sync pipelined after the COMMIT) get one.
public protocol ConcurrentBatchStore: ReceiptStore {
    /// How many `insert(_:)` calls may run at once (1…64).
    var concurrentBatches: Int { get }
}
