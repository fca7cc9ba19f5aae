import RichPushCore

/// The results of sending one notification to many device tokens.
public struct APNsBatchResult: Sendable {
    /// One result per token, in the order the tokens were given.
    public var results: [APNsResult]
    /// Requests that reached APNs and got an answer, one per token (the funnel's `sent`).
    public var sent: Int { results.filter { $0.status != nil }.count }
    /// Tokens APNs accepted with 200 (the funnel's `accepted`).
    public var accepted: Int { results.filter { $0.outcome == .accepted }.count }
    /// The configuration error that stopped the batch, if any (the tokens after it are `not_sent`).
    public var stoppedBy: RichPushError?
    /// The first answer body that was not APNs' JSON (a proxy's error page), shown once.
    public var unexpectedBody: String?

    /// Counts per outcome, e.g. `["accepted": 98, "token_inactive": 2]`.
    public var countsByOutcome: [String: Int] {
        results.reduce(into: [:]) { $0[$1.outcome.rawValue, default: 0] += 1 }
    }
}
