import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Limits guesses of the admin token per client address: each address (IPv6: each /64) has a
/// bucket of `burst` attempts that refills at one attempt per `refillSeconds`. A wrong token (at
/// `POST /login` or as a Bearer token) takes one; with the bucket empty, every admin
/// authentication from that address is answered `429` with `Retry-After` without being checked,
/// the right token included, so guessing cannot go faster than the refill.
///
/// Memory is bounded: at most `maximumClients` addresses are tracked; when full, buckets that
/// have refilled are dropped first, then the oldest.
final class LoginThrottle: Sendable {
    /// Attempts an address may make at once: 10.
    static let defaultBurst = 10
    /// Seconds per regained attempt: 6 (10 a minute, sustained).
    static let defaultRefillSeconds: Double = 6
    /// Addresses tracked at most.
    static let maximumClients = 10_000

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private let burst: Double
    private let refillSeconds: Double
    private let now: @Sendable () -> Double
    private let buckets = Locked<[String: Bucket]>([:])

    /// Makes a throttle.
    ///
    /// - Parameters:
    ///   - burst: attempts allowed at once.
    ///   - refillSeconds: seconds per regained attempt.
    ///   - now: a monotonic clock in seconds (tests pass their own).
    init(
        burst: Int = defaultBurst, refillSeconds: Double = defaultRefillSeconds,
        now: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
    ) {
        self.burst = Double(burst)
        self.refillSeconds = refillSeconds
        self.now = now
    }

    /// Seconds until `client` may try again, or `nil` when it may try now.
    ///
    /// - Parameter client: the client's address.
    /// - Returns: whole seconds to wait (at least 1), or `nil`.
    func retryAfter(_ client: String) -> Int? {
        let key = ClientOrigin.limitKey(client)
        return buckets.withLock { buckets in
            guard let bucket = buckets[key] else { return nil }
            let tokens = refilled(bucket, at: now())
            guard tokens < 1 else { return nil }
            return max(1, Int(((1 - tokens) * refillSeconds).rounded(.up)))
        }
    }

    /// Addresses tracked right now (at most `maximumClients`).
    var trackedClients: Int { buckets.withLock { $0.count } }

    /// Records a failed attempt from `client`.
    ///
    /// - Parameter client: the client's address.
    func recordFailure(_ client: String) {
        let key = ClientOrigin.limitKey(client)
        buckets.withLock { buckets in
            let time = now()
            if buckets[key] == nil && buckets.count >= Self.maximumClients { evict(&buckets, at: time) }
            let tokens = buckets[key].map { refilled($0, at: time) } ?? burst
            buckets[key] = Bucket(tokens: max(0, tokens - 1), updated: time)
        }
    }

    private func refilled(_ bucket: Bucket, at time: Double) -> Double {
        min(burst, bucket.tokens + max(0, time - bucket.updated) / refillSeconds)
    }

    /// Drops full buckets (they limit nothing), or else the least recently updated quarter.
    private func evict(_ buckets: inout [String: Bucket], at time: Double) {
        let full = buckets.filter { refilled($0.value, at: time) >= burst }.map(\.key)
        for key in full { buckets[key] = nil }
        guard buckets.count >= Self.maximumClients else { return }
        let oldest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(Self.maximumClients / 4).map(\.key)
        for key in oldest { buckets[key] = nil }
    }
}
