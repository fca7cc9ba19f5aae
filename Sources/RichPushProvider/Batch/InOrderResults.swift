/// A batch sent from an array, its streamed results put back in the array's order: what
/// `APNsClient.send(_:to:progress:)` and `FCMClient.send(_:to:progress:)` return.
enum InOrderResults {
    /// The message of a token the batch never reported.
    static let notSentMessage = "not sent: the batch stopped"

    /// Runs a streaming send over `tokens` and collects one result per token, in the tokens'
    /// order; a token the batch never reported (it stopped first) gets `notSent`'s result.
    ///
    /// - Parameters:
    ///   - tokens: the device tokens.
    ///   - progress: called with (done, total) as results arrive.
    ///   - notSent: the result for a token with none.
    ///   - send: the streaming send, given the tokens as a source and the per-result callback.
    /// - Returns: one result per token in the given order, and the batch's totals.
    /// - Throws: what `send` throws.
    static func collect<Result: Sendable>(
        _ tokens: [String],
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)?,
        notSent: (String) -> Result,
        send: (ArrayTokenSource, (_ index: Int, _ result: Result) -> Void) async throws -> PushBatchSummary
    ) async throws -> (results: [Result], summary: PushBatchSummary) {
        let total = tokens.count
        var results = [Result?](repeating: nil, count: total)
        var done = 0
        let summary = try await send(ArrayTokenSource(tokens)) { index, result in
            results[index] = result
            done += 1
            progress?(done, total)
        }
        return (results.enumerated().map { index, result in result ?? notSent(tokens[index]) }, summary)
    }
}
