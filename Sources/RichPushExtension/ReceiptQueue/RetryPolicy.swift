import Foundation

/// When a receipt is sent again: exponential backoff with full jitter (delay drawn uniformly
/// from 0…min(cap, base·2^attempt), the AWS Architecture Blog's "Exponential Backoff and Jitter"),
/// and which answers are worth a retry.
@_spi(RichPushInternal)
public struct RetryPolicy: Sendable, Equatable {
    /// What to do with a queued receipt after one attempt.
    public enum Decision: Sendable, Equatable {
        /// 2xx: remove it.
        case delivered
        /// 408, 429, 5xx or a network error: keep it and try again later.
        case retry
        /// Any other status: the server will never accept it; drop it.
        case drop
    }

    /// The first retry's upper bound, in seconds.
    public var baseDelay: Double
    /// The largest delay, in seconds.
    public var maximumDelay: Double

    /// The defaults: 1 s doubling up to 5 minutes.
    public static let standard = RetryPolicy(baseDelay: 1, maximumDelay: 300)

    /// Makes a policy.
    /// - Parameters:
    ///   - baseDelay: the first retry's upper bound, in seconds.
    ///   - maximumDelay: the cap, in seconds.
    public init(baseDelay: Double, maximumDelay: Double) {
        self.baseDelay = max(0, baseDelay)
        self.maximumDelay = max(0, maximumDelay)
    }

    /// Classifies one attempt's answer.
    ///
    /// - Parameter status: the HTTP status, or `nil` for a network error or timeout.
    /// - Returns: delivered (2xx), retry (408, 429, 5xx, network) or drop (other statuses).
    public func decision(for status: Int?) -> Decision {
        guard let status else { return .retry }
        switch status {
        case 200...299: return .delivered
        case 408, 429, 500...599: return .retry
        default: return .drop
        }
    }

    /// The delay before the next attempt.
    ///
    /// - Parameter attempts: failed attempts so far (1 after the first failure).
    /// - Returns: seconds, uniformly random in 0…min(maximumDelay, baseDelay·2^(attempts−1)).
    public func delay(afterAttempts attempts: Int) -> Double {
        let exponent = Double(min(max(attempts - 1, 0), 30))
        let bound = min(maximumDelay, baseDelay * pow(2, exponent))
        return bound > 0 ? Double.random(in: 0...bound) : 0
    }
}
