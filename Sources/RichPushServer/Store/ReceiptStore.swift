import Foundation
import RichPushCore

/// Where receipts and sends are written. SQLite today (`SQLiteStore`); PostgreSQL can follow
/// behind the same protocol without touching the HTTP layer.
///
/// Writes come from one writer (`ReceiptWriter`), so implementations may assume calls to
/// `insert(_:)` do not overlap; reads (`StatisticsStore`) may run concurrently with writes.
public protocol ReceiptStore: AnyObject, Sendable {
    /// Stores a batch of receipts in ONE transaction and returns after it is committed.
    ///
    /// A receipt whose (`push_id`, `event`, `receipt_id`) was stored before is a duplicate and is
    /// not stored again; receipts without a `receipt_id` are always new.
    ///
    /// - Parameter receipts: the batch, in arrival order.
    /// - Returns: for each receipt, in order, `true` when it was new and `false` for a duplicate.
    /// - Throws: `RichPushError` `store` when the transaction failed (nothing was committed).
    func insert(_ receipts: [StoredReceipt]) throws -> [Bool]

    /// Records one send of a push (issue 5's `POST /v1/pushes`): adds to the push's `sent` and
    /// `accepted` counts and keeps each device token's outcome, in one transaction.
    ///
    /// - Parameter send: the send and its per-token results.
    /// - Throws: `RichPushError` `store`.
    func recordSend(_ send: PushSendRecord) throws

    /// Flushes and closes the store (checkpoints the WAL for SQLite). Further calls fail.
    ///
    /// - Throws: `RichPushError` `store`.
    func close() throws
}
