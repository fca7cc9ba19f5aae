import Foundation
@_spi(RichPushInternal) import RichPushCore

/// The graceful-shutdown signal a `ServiceGroup` gives its services (a task-local, as
/// swift-service-lifecycle's `gracefulShutdown()` is): a service asks `isRequested` between
/// units of work and waits with `sleep(milliseconds:)`, which returns as soon as the shutdown
/// comes.
public enum GracefulShutdown {
    /// The signal of the group running the current task (`nil` outside a group).
    @TaskLocal static var signal: Signal?

    /// Whether the group running this task was asked to stop (or the task was cancelled).
    public static var isRequested: Bool { Task.isCancelled || (signal?.isTriggered ?? false) }

    /// Sleeps `milliseconds`, returning early when a graceful shutdown is requested or the task
    /// is cancelled.
    ///
    /// - Parameter milliseconds: the longest wait, ms.
    public static func sleep(milliseconds: Int) async {
        let clock = ContinuousClock()
        let end = clock.now + .milliseconds(max(0, milliseconds))
        while !isRequested {
            let left = end - clock.now
            if left <= .zero { return }
            // Short steps: the signal is read between them (a few wake-ups a second while idle).
            try? await Task.sleep(for: min(left, .milliseconds(50)))
        }
    }

    /// One group's signal: set once, read by every service.
    final class Signal: Sendable {
        private let triggered = Locked(false)

        /// Whether the shutdown was requested.
        var isTriggered: Bool { triggered.withLock { $0 } }

        /// Requests the shutdown.
        func trigger() { triggered.withLock { $0 = true } }
    }
}
