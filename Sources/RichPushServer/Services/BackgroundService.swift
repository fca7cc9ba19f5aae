import Foundation

/// Work a `richpush serve` instance does besides answering requests (the campaign workers, the
/// webhook dispatcher, the media edge's clean-up, the campaign targets' purge, the recipients'
/// retention), in one shape: `run()` does the work until the instance stops, as a service of
/// swift-service-lifecycle or Hummingbird's `ServiceGroup` does.
///
/// A `ServiceGroup` starts every service of the server together and stops them together: on a
/// graceful shutdown (SIGTERM) `GracefulShutdown.isRequested` turns true and its waits
/// (`GracefulShutdown.sleep(milliseconds:)`, a change feed's wait) return early, so `run()`
/// finishes what it has in hand and returns; past the grace period the group cancels the tasks
/// (`Task.isCancelled`), and `run()` must return promptly then too.
public protocol BackgroundService: Sendable {
    /// The service's name in logs (`campaign workers`, `webhook dispatcher`, …).
    var name: String { get }

    /// Does the service's work until a graceful shutdown is requested (or the task is cancelled).
    ///
    /// - Throws: what stopped the service for good; the group logs it (the other services go on).
    func run() async throws
}
