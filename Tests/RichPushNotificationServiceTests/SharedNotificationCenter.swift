#if !canImport(UserNotifications)
import Testing

/// A suite trait: suites that write the process-wide `UNUserNotificationCenter.current()` (its
/// categories) run one at a time, each whole suite holding the center.
///
/// `.serialized` orders the tests within one suite only; two such suites still ran at once, and
/// one's `setNotificationCategories(before ∪ mine)` (a read, then a write) could drop what the
/// other registered in between, or a category could go while the other suite read it back.
struct SharedNotificationCenter: SuiteTrait, TestScoping {
    /// The one lock of the process.
    private static let lock = AsyncLock()

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard test.isSuite else { return try await function() }
        await Self.lock.acquire()
        do {
            try await function()
        } catch {
            await Self.lock.release()
            throw error
        }
        await Self.lock.release()
    }
}

extension Trait where Self == SharedNotificationCenter {
    /// The suite writes `UNUserNotificationCenter.current()`: it runs while no other such suite does.
    static var sharedNotificationCenter: Self { SharedNotificationCenter() }
}

/// A lock awaited without holding a thread: waiters are resumed one at a time, in order.
private actor AsyncLock {
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            held = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
#endif
