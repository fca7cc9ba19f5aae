import Foundation

/// SIGINT and SIGTERM for `richpush serve`, listened for from the moment this is made — before the
/// server starts and prints its port, so a signal sent right after the `PORT` line is never lost
/// (nor does it kill the process before it can stop gracefully). Also ignores SIGPIPE.
final class TerminationSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var received: String?
    private var waiter: CheckedContinuation<String, Never>?

    /// Starts listening.
    init() {
        let queue = DispatchQueue(label: "richpush.serve.signals")
        var sources: [any DispatchSourceSignal] = []
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            // Ignored for the default action; the dispatch source still sees each one.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.deliver(name) }
            source.resume()
            sources.append(source)
        }
        signal(SIGPIPE, SIG_IGN)
        SignalSources.keep(sources)
    }

    /// Waits for the first signal (returns at once if it already came).
    ///
    /// - Returns: its name, `SIGINT` or `SIGTERM`.
    func wait() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let now: String? = lock.withLock {
                if let received { return received }
                waiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    private func deliver(_ name: String) {
        let resumed: CheckedContinuation<String, Never>? = lock.withLock {
            guard received == nil else { return nil }
            received = name
            defer { waiter = nil }
            return waiter
        }
        resumed?.resume(returning: name)
    }
}
