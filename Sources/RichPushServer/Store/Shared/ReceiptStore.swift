import Foundation
import RichPushCore

/// Where receipts and sends are written: `SQLiteStore` (one file, one instance) or
/// `PostgresStore` (several instances on one database), behind the same protocol.
///
/// Writes come from one writer (`ReceiptWriter`), so implementations may assume calls to
/// `insert(_:)` do not overlap — unless their `concurrentBatches` is more than 1, which gets
/// that many at once; reads (`StatisticsStore`) may run concurrently with writes. Every store also keeps
/// device registrations and the token lifecycle (`DeviceStore`).
public protocol ReceiptStore: DeviceStore {
    /// Stores a batch of receipts in ONE transaction and returns after it is committed.
    ///
    /// A receipt whose (`push_id`, `event`, `receipt_id`) was stored before is a duplicate and is
    /// not stored again; receipts without a `receipt_id` are always new.
    ///
    /// - Parameter receipts: the batch, in arrival order.
    /// - Returns: for each receipt, in order, `true` when it was new and `false` for a duplicate.
    /// - Throws: `RichPushError` `store` when the transaction failed (nothing was committed).
    func insert(_ receipts: [StoredReceipt]) throws -> [Bool]

    /// Like `insert(_:)`, but may return once the transaction is committed and before it is
    /// durable; `syncCommitted()` then makes it durable. The group-commit writer uses the pair
    /// so that one batch's sync overlaps the next batch's inserts. Callers must not acknowledge
    /// a receipt before `syncCommitted()` has returned after its batch.
    ///
    /// - Parameter receipts: the batch, in arrival order.
    /// - Returns: for each receipt, in order, `true` when new and `false` for a duplicate.
    /// - Throws: `RichPushError` `store` when the transaction failed (nothing was committed).
    func insertDeferringSync(_ receipts: [StoredReceipt]) throws -> [Bool]

    /// Like `insertDeferringSync(_:)`, and also says which push ids the batch created (for the
    /// per-address budget, `CreationBudget`).
    ///
    /// - Parameter receipts: the batch, in arrival order.
    /// - Returns: for each receipt whether it was new, and the push ids new to the store.
    /// - Throws: `RichPushError` `store` when the transaction failed (nothing was committed).
    func insertReportingPushes(_ receipts: [StoredReceipt]) throws -> ReceiptBatchResult

    /// Makes every transaction committed so far durable (with SQLite `synchronous=FULL`: one
    /// `fdatasync` of the WAL file; a no-op when the store syncs at commit or does not promise
    /// more than surviving a process kill). Safe to call from another thread while the writer
    /// thread runs the next transaction.
    ///
    /// - Throws: `RichPushError` `store` when the sync failed (the receipts are not durable).
    func syncCommitted() throws

    /// Records one batch of sends of a push (`POST /v1/pushes`, or the figures of a push sent
    /// elsewhere: `POST /v1/pushes/{push_id}/sends`), in one transaction: adds to the push's
    /// `sent`, `accepted` and `skipped` counts, keeps the batch's source, each device token's
    /// outcome, and what the provider said about the token itself (inactive since, bad; an
    /// accepted token's mark is cleared).
    ///
    /// Idempotent per (`push_id`, `batchID`): a batch recorded before is not counted again.
    ///
    /// - Parameter send: the batch and its per-token results or totals.
    /// - Returns: `.recorded`, `.duplicate` (same batch, same figures) or `.conflict` (same batch
    ///   id, other figures: nothing recorded).
    /// - Throws: `RichPushError` `store`.
    @discardableResult
    func recordSend(_ send: PushSendRecord) throws -> SendRecording

    /// How many `insert(_:)` calls may run at once (1…64): more than 1 for a store that stores
    /// several batches at the same time (PostgreSQL: one connection per batch, each durable when
    /// it returns); `ReceiptWriter` runs that many writer threads. Default 1 (SQLite: one
    /// writer, its sync pipelined after the COMMIT).
    var concurrentBatches: Int { get }

    /// With several `concurrentBatches`, how long, in seconds, a batch must have been in flight
    /// before `ReceiptWriter` starts the next one beside it; 0 = as soon as receipts wait.
    var overlapAfter: Double { get }

    /// Flushes and closes the store (checkpoints the WAL for SQLite). Further calls fail.
    ///
    /// - Throws: `RichPushError` `store`.
    func close() throws

    /// The store's campaigns (`POST /v1/campaigns` and the campaign workers).
    ///
    /// - Returns: the campaign tables (SQLite and PostgreSQL: the store itself).
    /// - Throws: `RichPushError` `store_unsupported` when the store keeps no campaigns (the
    ///   default).
    func campaignStore() throws -> any CampaignStore

    /// The store's idempotency keys (`Idempotency-Key` on `POST /v1/pushes` and `POST /v1/campaigns`).
    ///
    /// - Returns: the key table (SQLite and PostgreSQL: the store itself).
    /// - Throws: `RichPushError` `store_unsupported` when the store keeps no keys (the default).
    func idempotencyStore() throws -> any IdempotencyStore

    /// The store's webhook outbox (`WebhookDispatcher` delivers from it).
    ///
    /// - Returns: the outbox (SQLite and PostgreSQL: the store itself).
    /// - Throws: `RichPushError` `store_unsupported` when the store keeps no outbox (the default).
    func webhookOutbox() throws -> any WebhookOutboxStore

    /// The store's change feed: what wakes idle campaign workers and webhook loops instead of
    /// polling (`StoreChangeFeed`).
    ///
    /// - Returns: PostgreSQL: `LISTEN`/`NOTIFY` (every instance's writes); SQLite: this process's
    ///   writes, announced at their COMMIT; the default: a feed that never wakes (callers poll).
    func changeFeed() -> any StoreChangeFeed

    /// Who saw a push per device, users' histories and erasure, conversions (`RecipientStore`).
    ///
    /// - Returns: the store's recipients (SQLite and PostgreSQL: the store itself).
    /// - Throws: `RichPushError` `store_unsupported` when the store keeps none (the default).
    func recipientStore() throws -> any RecipientStore
}

extension ReceiptStore {
    /// Default: `insert(_:)`, which is durable on return.
    public func insertDeferringSync(_ receipts: [StoredReceipt]) throws -> [Bool] { try insert(receipts) }
    /// Default: `insertDeferringSync(_:)`, no push reported as new.
    public func insertReportingPushes(_ receipts: [StoredReceipt]) throws -> ReceiptBatchResult {
        ReceiptBatchResult(isNew: try insertDeferringSync(receipts), newPushIDs: [])
    }
    /// Default: nothing to do (`insert(_:)` was durable on return).
    public func syncCommitted() throws {}
    /// Default: one batch at a time.
    public var concurrentBatches: Int { 1 }
    /// Default: 0 (unused with one batch at a time).
    public var overlapAfter: Double { 0 }
    /// Default: no campaigns.
    public func campaignStore() throws -> any CampaignStore {
        throw RichPushError.storeUnsupported("campaigns")
    }
    /// Default: no idempotency keys.
    public func idempotencyStore() throws -> any IdempotencyStore {
        throw RichPushError.storeUnsupported("idempotency keys")
    }
    /// Default: no webhook outbox.
    public func webhookOutbox() throws -> any WebhookOutboxStore {
        throw RichPushError.storeUnsupported("webhook outbox")
    }
    /// Default: no recipients.
    public func recipientStore() throws -> any RecipientStore {
        throw RichPushError.storeUnsupported("recipients")
    }
    /// Default: a feed that never wakes a wait before its timeout (callers poll).
    public func changeFeed() -> any StoreChangeFeed { PollingChangeFeed() }
}
