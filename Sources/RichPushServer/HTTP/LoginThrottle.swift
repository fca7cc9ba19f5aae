import Foundation

/// Limits guesses of the admin token per client address: each address (IPv6: each /64) has a
/// bucket of `burst` attempts that refills at one attempt per `refillSeconds`. A wrong token (at
/// `POST /login` or as a Bearer token) takes one; with the bucket empty, every admin
/// authentication from that address is answered `429` with `Retry-After` without being checked,
/// the right token included, so guessing cannot go faster than the refill.
///
/// Memory is bounded: at most `maximumClients` addresses are tracked (`AddressBuckets`).
final class LoginThrottle: Sendable {
    /// Attempts an address may make at once: 10.
    static let defaultBurst = 10
    /// Seconds per regained attempt: 6 (10 a minute, sustained).
    static let defaultRefillSeconds: Double = 6
    /// Addresses tracked at most.
    static let maximumClients = 10_000

    private let buckets: AddressBuckets

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
        buckets = AddressBuckets(burst: Double(burst), rate: .secondsPerToken(refillSeconds), maximumClients: Self.maximumClients, now: now)
    }

    /// Seconds until `client` may try again, or `nil` when it may try now.
    ///
    /// - Parameter client: the client's address.
    /// - Returns: whole seconds to wait (at least 1), or `nil`.
    func retryAfter(_ client: String) -> Int? { buckets.retryAfter(client) }

    /// Addresses tracked right now (at most `maximumClients`).
    var trackedClients: Int { buckets.trackedClients }

    /// Records a failed attempt from `client`.
    ///
    /// - Parameter client: the client's address.
    func recordFailure(_ client: String) { buckets.take(1, from: client) }
}
