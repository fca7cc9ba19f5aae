import Foundation

/// Runs blocking work (child processes) on a thread of its own, never on the concurrency pool.
enum OwnThread {
    /// Runs `work` on a new thread and waits for it without blocking.
    /// - Parameter work: the blocking work.
    /// - Returns: its result.
    /// - Throws: what `work` throws.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
