import Foundation

/// Runs blocking work (a libpq round trip, a batch of inserts, a copy) on a thread of its own and
/// awaits it, so it never holds one of the cooperative pool's threads (2 on a 2-core machine)
/// that other tests' deadline timers need.
public enum BlockingWork {
    /// Runs `work` on a new thread and returns (or throws) what it does.
    ///
    /// - Parameters:
    ///   - name: the thread's name.
    ///   - work: the blocking work.
    /// - Returns: what `work` returns.
    /// - Throws: what `work` throws.
    public static func run<T: Sendable>(_ name: String = "blocking-work", _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.name = name
            thread.start()
        }
    }
}
