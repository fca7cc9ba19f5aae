import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Keeps dispatch signal sources alive for the life of the process.
enum SignalSources {
    private static let sources = Locked<[any DispatchSourceSignal]>([])

    /// Retains the sources.
    static func keep(_ new: [any DispatchSourceSignal]) {
        sources.withLock { $0 += new }
    }
}
