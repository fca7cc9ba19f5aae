import Foundation

/// Runs blocking test plumbing (waiting for a child process, sleeping out a backoff) on a thread
/// of its own, so it never occupies the concurrency pool that other suites' deadlines run on.
///
/// - Parameter body: the blocking work.
/// - Returns: what `body` returns.
/// - Throws: what `body` throws.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}
