import Foundation
@_spi(RichPushInternal) import RichPushCore

/// SIGINT and SIGTERM for `richpush serve`, listened for from the moment this is made — before the
/// server starts and prints its port, so a signal sent right after the `PORT` line is never lost
/// (nor does it kill the process before it can stop gracefully). Also ignores SIGPIPE.
final class TerminationSignal: Sendable {
    /// The first signal's name once it came, and the one waiter.
    private let state = Locked<(received: String?, waiter: CheckedContinuation<String, Never>?)>((nil, nil))

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
            let now: String? = state.withLock { state in
                if let received = state.received { return received }
                state.waiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    private func deliver(_ name: String) {
        let resumed: CheckedContinuation<String, Never>? = state.withLock { state in
            guard state.received == nil else { return nil }
            state.received = name
            defer { state.waiter = nil }
            return state.waiter
        }
        resumed?.resume(returning: name)
    }
}
