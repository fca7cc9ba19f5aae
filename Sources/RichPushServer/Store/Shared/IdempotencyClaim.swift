import Foundation

/// What claiming an idempotency key found (`IdempotencyStore.claimIdempotencyKey`).
public enum IdempotencyClaim: Sendable, Equatable {
    /// The key is this request's now: send, then store the answer.
    case claimed
    /// The key's first request finished within the window: answer what it answered.
    case completed(status: Int, response: String)
    /// The key was first used with another body.
    case reused
    /// The key's first request is still running; its lease ends at `leaseUntilMs`.
    case inProgress(leaseUntilMs: Int)

    /// What a key's row says to a request that did not get the key.
    ///
    /// - Parameters:
    ///   - storedSHA256: the body hash the key was claimed with.
    ///   - state: `in_progress` or `done`.
    ///   - status: the stored status (`done`).
    ///   - response: the stored body (`done`).
    ///   - leaseUntilMs: when the claim's lease ends, ms since 1970.
    ///   - bodySHA256: this request's body hash.
    /// - Returns: `.reused`, `.completed` or `.inProgress`.
    static func found(storedSHA256: String, state: String, status: Int?, response: String?, leaseUntilMs: Int, bodySHA256: String) -> IdempotencyClaim {
        if storedSHA256 != bodySHA256 { return .reused }
        if state == "done", let status { return .completed(status: status, response: response ?? "") }
        return .inProgress(leaseUntilMs: leaseUntilMs)
    }
}
