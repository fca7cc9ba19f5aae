#if !canImport(UserNotifications)
import Dispatch
import Foundation

/// Wakes the host's loop when a content handler is called, or after a timeout; never blocks a thread.
///
/// `@unchecked Sendable`: every stored value is behind one lock.
final class HostSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = false
    private var waiter: CheckedContinuation<Void, Never>?
    private var generation = 0

    /// Wakes the waiter, or the next wait when nobody waits yet.
    func signal() {
        lock.lock()
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume()
        } else {
            pending = true
            lock.unlock()
        }
    }

    /// Waits for `signal()` or for `seconds` to pass, whichever comes first (one waiter at a time).
    /// - Parameter seconds: the longest wait.
    func wait(seconds: Double) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if pending {
                pending = false
                lock.unlock()
                continuation.resume()
                return
            }
            generation += 1
            let mine = generation
            waiter = continuation
            lock.unlock()
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, seconds)) { [self] in
                timeOut(generation: mine)
            }
        }
    }

    private func timeOut(generation expected: Int) {
        lock.lock()
        guard generation == expected, let waiter else {
            lock.unlock()
            return
        }
        self.waiter = nil
        lock.unlock()
        waiter.resume()
    }
}
#endif
