import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Token buckets per client address (IPv6: per /64, `ClientOrigin.limitKey`), the one mechanism
/// behind `LoginThrottle` and `CreationBudget`: an address's bucket holds up to `burst` tokens and
/// regains them at a steady `rate`; an address never seen has a full bucket.
///
/// Memory is bounded: at most `maximumClients` addresses are tracked; when full, buckets that
/// have refilled are dropped first (they limit nothing), then the least recently taken-from
/// quarter.
final class AddressBuckets: Sendable {
    /// How fast a bucket refills.
    enum Rate: Sendable {
        /// Tokens regained per second.
        case tokensPerSecond(Double)
        /// Seconds per regained token.
        case secondsPerToken(Double)

        /// Tokens regained in `seconds`.
        func tokens(in seconds: Double) -> Double {
            switch self {
            case .tokensPerSecond(let rate): seconds * rate
            case .secondsPerToken(let period): seconds / period
            }
        }

        /// Seconds it takes to regain `tokens`.
        func seconds(for tokens: Double) -> Double {
            switch self {
            case .tokensPerSecond(let rate): tokens / rate
            case .secondsPerToken(let period): tokens * period
            }
        }
    }

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    /// Tokens a bucket holds at most (and an unseen address starts with).
    let burst: Double
    /// How fast a bucket refills.
    let rate: Rate
    /// How far a bucket may go into debt (0: never below empty).
    let debt: Double
    /// Addresses tracked at most.
    let maximumClients: Int
    private let now: @Sendable () -> Double
    private let buckets = Locked<[String: Bucket]>([:])

    /// Makes the buckets.
    ///
    /// - Parameters:
    ///   - burst: tokens a bucket holds at most.
    ///   - rate: how fast it refills.
    ///   - debt: how many tokens below empty a bucket may go (taken tokens paid back before the
    ///     next one is available).
    ///   - maximumClients: addresses tracked at most.
    ///   - now: a monotonic clock in seconds.
    init(burst: Double, rate: Rate, debt: Double = 0, maximumClients: Int, now: @escaping @Sendable () -> Double) {
        self.burst = burst
        self.rate = rate
        self.debt = debt
        self.maximumClients = maximumClients
        self.now = now
    }

    /// Seconds until `client`'s bucket holds a token again, or `nil` while it holds one.
    ///
    /// - Parameter client: the client's address.
    /// - Returns: whole seconds to wait (at least 1), or `nil`.
    func retryAfter(_ client: String) -> Int? {
        let key = ClientOrigin.limitKey(client)
        return buckets.withLock { buckets in
            guard let bucket = buckets[key] else { return nil }
            let tokens = refilled(bucket, at: now())
            guard tokens < 1 else { return nil }
            return max(1, Int(rate.seconds(for: 1 - tokens).rounded(.up)))
        }
    }

    /// Takes `count` tokens from `client`'s bucket (down to `-debt` at most).
    ///
    /// - Parameters:
    ///   - count: tokens to take.
    ///   - client: the client's address.
    func take(_ count: Int, from client: String) {
        let key = ClientOrigin.limitKey(client)
        buckets.withLock { buckets in
            let time = now()
            if buckets[key] == nil && buckets.count >= maximumClients { evict(&buckets, at: time) }
            let tokens = buckets[key].map { refilled($0, at: time) } ?? burst
            buckets[key] = Bucket(tokens: max(-debt, tokens - Double(count)), updated: time)
        }
    }

    /// Addresses tracked right now (at most `maximumClients`).
    var trackedClients: Int { buckets.withLock { $0.count } }

    private func refilled(_ bucket: Bucket, at time: Double) -> Double {
        min(burst, bucket.tokens + rate.tokens(in: max(0, time - bucket.updated)))
    }

    private func evict(_ buckets: inout [String: Bucket], at time: Double) {
        let full = buckets.filter { refilled($0.value, at: time) >= burst }.map(\.key)
        for key in full { buckets[key] = nil }
        guard buckets.count >= maximumClients else { return }
        let oldest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(maximumClients / 4).map(\.key)
        for key in oldest { buckets[key] = nil }
    }
}
