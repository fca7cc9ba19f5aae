import Foundation

/// A dispatch queue for store work that may wait on the disk or the network (SQLite's fsync, a
/// PostgreSQL round trip), awaited from an endpoint: no thread of Swift's cooperative pool and no
/// server thread waits on it.
struct BlockingQueue: Sendable {
    private let queue: DispatchQueue

    /// Makes a queue.
    ///
    /// - Parameters:
    ///   - label: the queue's label.
    ///   - concurrent: whether several blocks may run at once (reads) or one after another (writes).
    init(label: String, concurrent: Bool) {
        queue = DispatchQueue(label: label, attributes: concurrent ? [.concurrent] : [])
    }

    /// Runs `work` on the queue and returns its result.
    ///
    /// - Parameter work: the blocking work.
    /// - Returns: what `work` returned.
    /// - Throws: what `work` threw.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
