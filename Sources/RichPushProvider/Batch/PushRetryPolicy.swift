/// Backoff for the answers a provider asks to be retried (`APNsRetryPolicy`, `FCMRetryPolicy`):
/// exponential backoff with full jitter, never sooner than a `Retry-After` header asks.
///
/// One type under both names: the backoff is the same arithmetic; which answers are retried is
/// the provider's (`APNsResponseHandling`, `FCMResponseHandling`).
public struct PushRetryPolicy: Sendable {
    /// Requests per token at most, the first included (default 4).
    public var maxAttempts: Int = 4
    /// The first backoff ceiling, in seconds (default 0.5 s); doubled per attempt.
    public var baseDelay: Double = 0.5
    /// The largest backoff, in seconds (default 10 s).
    public var maxDelay: Double = 10

    /// The default policy: 4 attempts, 0.5 s doubling to at most 10 s, full jitter.
    public init() {}

    /// Makes a policy.
    /// - Parameters:
    ///   - maxAttempts: requests per token at most (≥ 1).
    ///   - baseDelay: the first backoff ceiling, in seconds.
    ///   - maxDelay: the largest backoff, in seconds.
    public init(maxAttempts: Int, baseDelay: Double, maxDelay: Double) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
    }

    /// The delay before retry number `retry` (1 = the first retry), in seconds: uniformly random
    /// between 0 and `min(maxDelay, baseDelay × 2^(retry−1))` ("full jitter").
    public func delay(beforeRetry retry: Int) -> Double {
        let ceiling = min(maxDelay, baseDelay * Double(1 << min(max(retry - 1, 0), 20)))
        return ceiling > 0 ? Double.random(in: 0...ceiling) : 0
    }

    /// The delay before retry number `retry`, at least what the server's `Retry-After` asked for.
    ///
    /// - Parameters:
    ///   - retry: 1 for the first retry.
    ///   - retryAfter: the `Retry-After` wait in seconds (`RetryAfter.seconds`), if any.
    /// - Returns: seconds: `retryAfter` plus up to `baseDelay` of jitter (so that tokens told the
    ///   same time do not all come back at once), else `delay(beforeRetry:)`.
    public func delay(beforeRetry retry: Int, retryAfter: Double?) -> Double {
        guard let retryAfter, retryAfter > 0 else { return delay(beforeRetry: retry) }
        return retryAfter + (baseDelay > 0 ? Double.random(in: 0...baseDelay) : 0)
    }
}
