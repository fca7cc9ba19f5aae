import RichPushCore

/// The totals of one batch send, kept while results stream out (no per-token memory).
public struct PushBatchSummary: Sendable {
    /// Tokens read from the source (sent, skipped or not sent).
    public var total = 0
    /// Tokens the provider answered for (the funnel's `sent`).
    public var sent = 0
    /// Tokens the provider accepted (the funnel's `accepted`).
    public var accepted = 0
    /// Tokens per outcome, e.g. `["accepted": 98, "token_inactive": 2]`.
    public var countsByOutcome: [String: Int] = [:]
    /// The error that stopped the batch (configuration, no connection, an unreadable token
    /// source); the tokens after it are `not_sent`.
    public var stoppedBy: RichPushError?
    /// The first response body that was not the provider's JSON (at most 200 characters), shown
    /// once for the whole batch.
    public var unexpectedBody: String?

    /// Makes an empty summary.
    public init() {}

    /// Counts one result.
    /// - Parameter result: a token's final result.
    public mutating func add(_ result: some PushTokenResult) {
        total += 1
        if result.status != nil { sent += 1 }
        if result.outcome == .accepted { accepted += 1 }
        countsByOutcome[result.outcome.rawValue, default: 0] += 1
        if unexpectedBody == nil, let body = result.unexpectedBody { unexpectedBody = body }
    }

    /// `accepted 98, token_inactive 2`, outcomes in alphabetical order.
    public var countsDescription: String {
        countsByOutcome.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
