import Foundation
@_spi(RichPushInternal) import RichPushCore

/// The wall clock the provider reads for JWT `iat` and token renewal; injected so tests control time.
public protocol ProviderClock: Sendable {
    /// The current time.
    var now: Date { get }
}

/// The system's wall clock.
public struct SystemClock: ProviderClock {
    /// Makes the system clock.
    public init() {}
    /// `Date()`.
    public var now: Date { Date() }
}

/// A clock that moves only when told to (tests).
public final class ManualClock: ProviderClock, Sendable {
    private let current: Locked<Date>

    /// Makes a clock stopped at `start`.
    /// - Parameter start: the initial time.
    public init(_ start: Date = Date()) { current = Locked(start) }

    /// The time the clock was last set to.
    public var now: Date {
        current.withLock { $0 }
    }

    /// Moves the clock forward.
    /// - Parameter seconds: how far, in seconds.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
