import Foundation

/// A value behind one lock: the pipeline's small shared state (latches, waiters).
///
/// `NSLock` rather than `Synchronization.Mutex` because the package supports iOS 16.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
