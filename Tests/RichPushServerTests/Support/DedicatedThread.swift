import Foundation

/// A thread of its own for blocking test plumbing (socket reads, joins of the writer's threads),
/// so that it never holds a thread of Swift's cooperative pool (2 threads here); callers await
/// the results through a continuation.
///
/// Jobs run one at a time, in order. The thread ends when the object is released and its queued
/// jobs are done.
final class DedicatedThread: Sendable {
    private let jobs = JobQueue()

    /// Starts the thread.
    /// - Parameter name: the thread's name (shown in debuggers and crash logs).
    init(name: String) {
        let jobs = self.jobs
        let thread = Thread { jobs.runUntilFinished() }
        thread.name = name
        thread.start()
    }

    deinit { jobs.finish() }

    /// Runs blocking `work` on this thread and awaits its result without holding a pool thread.
    /// - Parameter work: the blocking work.
    /// - Returns: what `work` returns.
    /// - Throws: what `work` throws.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            jobs.enqueue { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs blocking `work` on a new thread of its own and awaits it.
    /// - Parameters:
    ///   - name: the thread's name.
    ///   - work: the blocking work.
    /// - Returns: what `work` returns.
    /// - Throws: what `work` throws.
    static func run<T: Sendable>(named name: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await DedicatedThread(name: name).run(work)
    }
}

/// The jobs waiting for a `DedicatedThread`.
private final class JobQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var finished = false

    func enqueue(_ job: @escaping @Sendable () -> Void) {
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    func finish() {
        condition.withLock {
            finished = true
            condition.signal()
        }
    }

    func runUntilFinished() {
        while true {
            let job: (@Sendable () -> Void)? = condition.withLock {
                while jobs.isEmpty && !finished { condition.wait() }
                return jobs.isEmpty ? nil : jobs.removeFirst()
            }
            guard let job else { return }
            job()
        }
    }
}
