import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Runs a server's background services together and stops them together, the way
/// swift-service-lifecycle's (and Hummingbird's) `ServiceGroup` does, written here without the
/// package (no package from outside the toolchain can be fetched).
///
/// `start()` runs every service's `run()` in one task group; a service that returns or throws
/// before the shutdown is logged and the others go on (the server keeps answering requests).
/// `shutdown(grace:)` requests a graceful shutdown (`GracefulShutdown`), waits up to `grace`
/// seconds for every `run()` to return, then cancels what is left and waits for it.
public final class ServiceGroup: Sendable {
    /// The services, in the order they were given.
    public let services: [any BackgroundService]
    private let signal = GracefulShutdown.Signal()
    private let task = Locked<Task<Void, Never>?>(nil)
    private let finished = Locked<(done: Bool, waiters: [UUID: CheckedContinuation<Void, Never>])>((false, [:]))
    private let log: @Sendable (String) -> Void

    /// Makes a group (nothing runs before `start()`).
    ///
    /// - Parameters:
    ///   - services: the services.
    ///   - log: where a service that ends or fails early is reported (standard error).
    public init(services: [any BackgroundService], log: @escaping @Sendable (String) -> Void = ServiceGroup.standardError) {
        self.services = services
        self.log = log
    }

    /// Writes a line to standard error.
    ///
    /// - Parameter line: the line, without its newline.
    public static func standardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Starts every service (once; later calls do nothing).
    public func start() {
        let services = self.services, signal = self.signal, log = self.log
        task.withLock { task in
            guard task == nil else { return }
            task = Task.detached {
                await GracefulShutdown.$signal.withValue(signal) {
                    await withTaskGroup(of: Void.self) { group in
                        for service in services {
                            group.addTask {
                                do {
                                    try await service.run()
                                    if !signal.isTriggered { log("richpush serve: \(service.name) stopped before the shutdown") }
                                } catch {
                                    log("richpush serve: \(service.name) failed: \((error as? RichPushError)?.message ?? "\(error)")")
                                }
                            }
                        }
                    }
                }
                self.markFinished()
            }
        }
    }

    /// Whether a graceful shutdown was requested.
    public var isShuttingDown: Bool { signal.isTriggered }

    private func markFinished() {
        let waiters = finished.withLock { state in
            state.done = true
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume() }
    }

    /// Waits until every service has returned (at once when the group never started, or when
    /// the waiting task is cancelled).
    private func waitUntilFinished() async {
        if task.withLock({ $0 == nil }) { return }
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = finished.withLock { state in
                    if state.done || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            finished.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Stops every service: a graceful shutdown first, then, after `grace` seconds, cancellation.
    ///
    /// - Parameter grace: how long the services may take to finish what they hold, seconds.
    /// - Returns: `true` when every service returned within the grace period.
    @discardableResult
    public func shutdown(grace: Double) async -> Bool {
        signal.trigger()
        let graceful = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.waitUntilFinished()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int(max(0, grace) * 1000)))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !graceful {
            log("richpush serve: background work still running after \(grace) s; cancelling it")
            task.withLock { $0 }?.cancel()
            await waitUntilFinished()
        }
        return graceful
    }
}
