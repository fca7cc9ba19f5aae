/// What one batch adds to a `push_counts` row.
struct PushCountDelta {
    var receipts = 0
    var mediaBytes = 0
    /// Earliest and latest arrival in the batch, ms since 1970.
    var first: Int
    var last: Int

    init(first: Int, last: Int) {
        self.first = first
        self.last = last
    }

    /// Counts one newly stored receipt.
    mutating func add(_ stored: StoredReceipt) {
        receipts += 1
        mediaBytes += stored.receipt.mediaBytes ?? 0
        first = min(first, stored.receivedAtMs)
        last = max(last, stored.receivedAtMs)
    }
}
