/// What one stored batch of receipts did (`ReceiptStore.insertReportingPushes(_:)`).
public struct ReceiptBatchResult: Sendable, Equatable {
    /// For each receipt, in order, `true` when new and `false` for a duplicate.
    public var isNew: [Bool]
    /// The push ids the batch added to the store (not known before it).
    public var newPushIDs: Set<String>

    /// Makes a result.
    ///
    /// - Parameters:
    ///   - isNew: per receipt, whether it was new.
    ///   - newPushIDs: the push ids new to the store.
    public init(isNew: [Bool], newPushIDs: Set<String>) {
        self.isNew = isNew
        self.newPushIDs = newPushIDs
    }
}
