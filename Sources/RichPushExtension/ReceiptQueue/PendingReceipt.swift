import Foundation

/// A receipt waiting in the on-disk queue, with its destination and retry state.
@_spi(RichPushInternal)
public struct PendingReceipt: Sendable, Equatable, Codable {
    /// The receipt (its `receiptID` names the queue file).
    public var receipt: RichPushReceipt
    /// Where it goes (the receipts URL at the time it was queued).
    public var url: String
    /// When it was queued, in seconds since 1970.
    public var queuedAt: Double
    /// Failed attempts so far.
    public var attempts: Int
    /// Not sent before this time, in seconds since 1970 (backoff, or a claim by a sender).
    public var notBefore: Double

    /// Makes a queue entry.
    /// - Parameters:
    ///   - receipt: the receipt.
    ///   - url: the receipts URL.
    ///   - queuedAt: seconds since 1970.
    ///   - attempts: failed attempts so far.
    ///   - notBefore: seconds since 1970.
    public init(receipt: RichPushReceipt, url: String, queuedAt: Double, attempts: Int = 0, notBefore: Double = 0) {
        self.receipt = receipt
        self.url = url
        self.queuedAt = queuedAt
        self.attempts = attempts
        self.notBefore = notBefore
    }
}
