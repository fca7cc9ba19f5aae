import Foundation
@_spi(RichPushInternal) import RichPushCore

/// The per-client-address budget for rows that anonymous requests create: a receipt naming a push
/// id the store does not know (it adds a push), and `POST /v1/devices` registering a device token
/// the store does not have. Each address (IPv6: each /64, as `LoginThrottle`) has a bucket of
/// `burst` rows that refills at `perSecond`; a created row takes one. With the bucket empty, a
/// request that would create a row is answered `429 over_budget` with `Retry-After`; a receipt
/// for a push id the store knows, and a registration of a token it has, still pass (they add no
/// push, no device), so real devices behind the address keep reporting.
///
/// The numbers (defaults): a burst of 2,000 rows and 2 rows/s (7,200 an hour, 172,800 a day) per
/// address. A carrier-grade NAT may put thousands of real devices behind one IPv4 address; a
/// push sent through RichPush (`POST /v1/pushes`) is known before its receipts, so their receipts
/// never count, and a push sent elsewhere counts once, for the first receipt that names it, not
/// per device. What counts for real devices is push ids unique per device (transactional pushes
/// sent elsewhere) and first registrations: 5,000 devices behind one address each getting 30
/// such pushes a day is 150,000 a day, under the budget; a re-registration of a known token
/// (every app start) never counts, only new installs and token rotations. One attacking address
/// is held to 2 rows/s after its burst, about 90 MB a day of SQLite at ~500 B a receipt with a
/// new push id (`docs/limits.md`).
///
/// Charging happens after the row is written (the store says the push id was new), so an
/// address with many requests in flight at the moment its bucket empties may create a few more
/// (at most its requests in flight, once); they are paid back as debt before the next row.
/// Memory is bounded: at most `maximumClients` addresses are tracked (`AddressBuckets`).
final class CreationBudget: Sendable {
    /// Rows an address may create at once: 2,000.
    static let defaultBurst = 2_000
    /// Rows an address regains per second: 2.
    static let defaultPerSecond: Double = 2
    /// Addresses tracked at most.
    static let maximumClients = 50_000

    /// Rows an address may create at once (0: no budget).
    let burst: Double
    /// Rows regained per second.
    let perSecond: Double
    private let buckets: AddressBuckets
    private let refusedCount = Locked(0)

    /// Makes a budget.
    ///
    /// - Parameters:
    ///   - burst: rows an address may create at once (0: no budget, nothing is refused).
    ///   - perSecond: rows regained per second (more than 0).
    ///   - now: a monotonic clock in seconds (tests pass their own).
    init(
        burst: Int = defaultBurst, perSecond: Double = defaultPerSecond,
        now: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
    ) {
        self.burst = Double(max(0, burst))
        self.perSecond = max(0.001, perSecond)
        // Debt down to -burst: see `charge`.
        buckets = AddressBuckets(
            burst: self.burst, rate: .tokensPerSecond(self.perSecond), debt: self.burst, maximumClients: Self.maximumClients, now: now)
    }

    /// Seconds until `client` may create a row again, or `nil` while it may.
    ///
    /// - Parameter client: the client's address.
    /// - Returns: whole seconds to wait (at least 1), or `nil`.
    func retryAfter(_ client: String) -> Int? {
        burst > 0 ? buckets.retryAfter(client) : nil
    }

    /// Takes `rows` from `client`'s bucket. The bucket may go into debt (down to `-burst`): rows
    /// created by requests that were in flight when it ran out are paid back before the next one
    /// passes, so past the burst an address creates rows at `perSecond` and no faster (without
    /// the debt, each regained row would let every request then in flight through).
    ///
    /// - Parameters:
    ///   - client: the client's address.
    ///   - rows: rows created.
    func charge(_ client: String, rows: Int = 1) {
        guard rows > 0, burst > 0 else { return }
        buckets.take(rows, from: client)
    }

    /// Counts a refusal (for `/metrics`).
    func refused() { refusedCount.withLock { $0 += 1 } }

    /// Requests refused past the budget since start.
    var refusals: Int { refusedCount.withLock { $0 } }

    /// Addresses tracked right now (at most `maximumClients`).
    var trackedClients: Int { buckets.trackedClients }

    /// The `429` past the budget.
    ///
    /// - Parameters:
    ///   - seconds: the `Retry-After`.
    ///   - what: what would have been created (`a new push id`, `a new device token`).
    /// - Returns: the error.
    static func overBudget(retryAfter seconds: Int, creating what: String) -> HTTPResponseError {
        HTTPResponseError(
            status: 429, code: "over_budget",
            message:
                "this address created too many new rows (\(what) would add one); retry after \(seconds) s — receipts for push ids already known are still accepted",
            headers: [("Retry-After", String(seconds))])
    }
}
