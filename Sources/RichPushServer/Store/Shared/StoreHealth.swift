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
