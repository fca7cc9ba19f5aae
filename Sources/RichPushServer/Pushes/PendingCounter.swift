@_spi(RichPushInternal) import RichPushCore

/// A counter shared across threads.
final class PendingCounter: Sendable {
    private let count = Locked(0)
    func add(_ n: Int) { count.withLock { $0 += n } }
    var value: Int { count.withLock { $0 } }
}
