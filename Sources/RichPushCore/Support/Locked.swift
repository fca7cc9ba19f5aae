import Foundation

/// A value behind one lock: small shared state (latches, waiters, counters) for every target of
/// the package, instead of a hand-rolled `NSLock` beside each mutable field.
///
/// `NSLock` rather than `Synchronization.Mutex` because the package supports iOS 16.
/// `@unchecked Sendable`: every access to `value` goes through `withLock`, under `lock`.
///
/// Public under the `RichPushInternal` SPI rather than `package`: the package's own targets
/// import it with `@_spi(RichPushInternal) import RichPushCore`, an app that links RichPush does
/// not see it, and builds that pass no `-package-name` (the iOS type-check) still compile it.
@_spi(RichPushInternal)
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Wraps `value`.
    ///
    /// - Parameter value: the initial value.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    ///
    /// - Parameter body: reads or changes the value; must not call `withLock` on the same instance.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
