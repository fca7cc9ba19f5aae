import Foundation

/// Keeps dispatch signal sources alive for the life of the process.
enum SignalSources {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    private static let lock = NSLock()

    /// Retains the sources.
    static func keep(_ new: [any DispatchSourceSignal]) {
        lock.withLock { sources += new }
    }
}
