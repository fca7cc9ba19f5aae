/// Where a batch send reads its device tokens from, a few at a time: an array, a file streamed
/// line by line (`richpush send --tokens FILE`), a database cursor. The batch asks for the next
/// tokens only when it has room for them, so memory stays bounded however many tokens there are.
public protocol DeviceTokenSource: Sendable {
    /// The next tokens, in order.
    ///
    /// - Parameter maximumCount: the most tokens to return (≥ 1).
    /// - Returns: between 1 and `maximumCount` tokens, or an empty array when there are no more.
    /// - Throws: when the source cannot be read (the batch stops with that error).
    func nextTokens(maximumCount: Int) async throws -> [String]
}
