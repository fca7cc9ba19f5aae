/// What one flush of the receipt queue did, keyed by `ReceiptQueue.entryName` (the receipt id,
/// with `-opened` for an `opened` receipt).
public struct RichPushReceiptFlushReport: Sendable, Equatable {
    /// Receipt ids accepted by the server (2xx) and removed, with the status.
    public var sent: [String: Int] = [:]
    /// Receipt ids kept for a later attempt (408, 429, 5xx, network error), with the status.
    public var kept: [String: Int?] = [:]
    /// Receipt ids the server refused for good (other 4xx) and removed, with the status.
    public var dropped: [String: Int] = [:]
    /// Entries still waiting after the flush (including those not yet due).
    public var remaining: Int = 0

    /// An empty report.
    public init() {}
}
