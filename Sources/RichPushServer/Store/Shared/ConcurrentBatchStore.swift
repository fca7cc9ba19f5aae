/// A `ReceiptStore` that stores several batches at the same time (PostgreSQL: one connection per
/// batch; its `insert(_:)` is durable when it returns, so `syncCommitted()` has nothing to do).
///
/// `ReceiptWriter` runs `concurrentBatches` writer threads for it. Stores without this (SQLite:
/// one writer, its sync pipelined after the COMMIT) get one.
public protocol ConcurrentBatchStore: ReceiptStore {
    /// How many `insert(_:)` calls may run at once (1…64).
    var concurrentBatches: Int { get }

    /// How long, in seconds, a batch must have been in flight before `ReceiptWriter` starts the
    /// next one beside it; 0 = as soon as receipts wait.
    var overlapAfter: Double { get }
}
