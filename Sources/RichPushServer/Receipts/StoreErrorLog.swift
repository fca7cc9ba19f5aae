import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Writes receipt store failures to stderr, at most once a second (a failing disk must not
/// flood the log with one line per receipt).
final class StoreErrorLog: Sendable {
    private let last = Locked(Date.distantPast)

    /// Writes `message` unless a line was written less than a second ago.
    ///
    /// - Parameter message: the store's message.
    func write(_ message: String) {
        let now = Date()
        let due = last.withLock { last in
            guard now.timeIntervalSince(last) >= 1 else { return false }
            last = now
            return true
        }
        if due { FileHandle.standardError.write(Data("richpush serve: receipts not stored (answered 503): \(message)\n".utf8)) }
    }
}
