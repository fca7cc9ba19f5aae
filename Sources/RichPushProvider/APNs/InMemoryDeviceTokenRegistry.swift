import Foundation

/// A `DeviceTokenStateHandler` that keeps token states in memory (tests, the command line).
public actor InMemoryDeviceTokenRegistry: DeviceTokenStateHandler {
    /// The state of one token.
    public struct State: Sendable, Equatable {
        /// When the app last registered it.
        public var registeredAt: Date?
        /// When APNs said it became inactive (410).
        public var inactiveSince: Date?
        /// Whether it was marked inactive.
        public var isInactive = false
        /// `BadDeviceToken` / `DeviceTokenNotForTopic`, when APNs said so.
        public var badReason: APNsReason?
    }

    private var states: [String: State] = [:]

    /// Makes an empty registry.
    public init() {}

    /// Records that the app registered `deviceToken` at `date` (clears an inactive mark).
    /// - Parameters:
    ///   - deviceToken: the hex token.
    ///   - date: when.
    public func register(_ deviceToken: String, at date: Date) {
        var s = states[deviceToken] ?? State()
        s.registeredAt = date
        s.isInactive = false
        s.badReason = nil
        states[deviceToken] = s
    }

    /// The state of a token (`nil` when never seen).
    public func state(of deviceToken: String) -> State? { states[deviceToken] }

    public func lastRegistration(of deviceToken: String) -> Date? { states[deviceToken]?.registeredAt }

    public func deviceTokenBecameInactive(_ deviceToken: String, since timestamp: Date?) {
        var s = states[deviceToken] ?? State()
        s.isInactive = true
        s.inactiveSince = timestamp
        states[deviceToken] = s
    }

    public func deviceTokenIsBad(_ deviceToken: String, reason: APNsReason, hint: String) {
        var s = states[deviceToken] ?? State()
        s.badReason = reason
        states[deviceToken] = s
    }
}
