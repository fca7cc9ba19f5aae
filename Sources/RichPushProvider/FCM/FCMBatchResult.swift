import RichPushCore

/// The results of sending one message to many registration tokens through FCM.
public struct FCMBatchResult: Sendable {
    /// One result per token, in the order the tokens were given.
    public var results: [FCMSendResult]
    /// The configuration error that stopped the batch, if any (the tokens after it are `not_sent`).
    public var stoppedBy: RichPushError?
    /// The first answer body that was not FCM's JSON (a proxy's error page), shown once.
    public var unexpectedBody: String?

    /// Tokens FCM answered for (the funnel's `sent`).
    public var sent: Int { results.filter { $0.status != nil }.count }
    /// Tokens FCM accepted (the funnel's `accepted`).
    public var accepted: Int { results.filter { $0.outcome == .accepted }.count }
    /// Counts per outcome, e.g. `["accepted": 98, "token_inactive": 2]`.
    public var countsByOutcome: [String: Int] {
        results.reduce(into: [:]) { $0[$1.outcome.rawValue, default: 0] += 1 }
    }
}
