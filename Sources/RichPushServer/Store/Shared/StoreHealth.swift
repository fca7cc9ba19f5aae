import Foundation

/// Whether a store can take receipts now, as `GET /healthz` reports it.
public struct StoreHealth: Sendable, Equatable {
    /// `true` when writes and reads reach the database.
    public var isAvailable: Bool
    /// Why not, in words safe for anonymous clients: no host, port, user or URL (those go to
    /// the server's log). `nil` when available.
    public var reason: String?

    /// Available.
    public static let available = StoreHealth(isAvailable: true, reason: nil)

    /// Makes a health report.
    ///
    /// - Parameters:
    ///   - isAvailable: whether the store works.
    ///   - reason: why not (no secrets).
    public init(isAvailable: Bool, reason: String?) {
        self.isAvailable = isAvailable
        self.reason = reason
    }
}

/// A store that can lose its database while the server runs (PostgreSQL) and says so.
///
/// Stores without this (the embedded SQLite file) are always reported available.
public protocol StoreHealthReporting: AnyObject, Sendable {
    /// The store's current health; cheap enough for a load balancer to poll (implementations
    /// probe the database at most about once per second and answer from memory in between).
    ///
    /// - Returns: available, or unavailable with a reason.
    func health() -> StoreHealth
}
