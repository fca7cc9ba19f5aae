#if !canImport(UserNotifications)
import Dispatch
import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Wakes the host's loop when a content handler is called, or after a timeout; never blocks a thread.
final class HostSignal: Sendable {
    /// A signal not yet waited for, the one waiter, and which wait it is.
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation = 0
    }

    private let state = Locked(State())

    /// Wakes the waiter, or the next wait when nobody waits yet.
    func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiter else {
                s.pending = true
                return nil
            }
            s.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Waits for `signal()` or for `seconds` to pass, whichever comes first (one waiter at a time).
    /// - Parameter seconds: the longest wait.
    func wait(seconds: Double) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let mine = state.withLock { s -> Int? in
                if s.pending {
                    s.pending = false
                    return nil
                }
                s.generation += 1
                s.waiter = continuation
                return s.generation
            }
            guard let mine else {
                continuation.resume()
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, seconds)) { [self] in
                timeOut(generation: mine)
            }
        }
    }

    private func timeOut(generation expected: Int) {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard s.generation == expected, let waiter = s.waiter else { return nil }
            s.waiter = nil
            return waiter
        }
        waiter?.resume()
    }
}
#endif
