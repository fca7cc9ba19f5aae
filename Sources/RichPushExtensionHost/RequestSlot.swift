#if !canImport(UserNotifications)
import Foundation
import UserNotificationsStandIn

/// One request's state in the host: handler calls, what was shown, faults.
///
/// The content handler may be called on any thread, so `@unchecked Sendable` with one lock over
/// every stored value.
final class RequestSlot: @unchecked Sendable {
    /// What a handler call is, decided atomically.
    enum Claim {
        /// The first call, in time: its content is shown.
        case first
        /// A call after the first one (a fault; iOS keeps the first content).
        case again
        /// A call after the host showed the original (a fault; ignored).
        case late
    }

    private let lock = NSLock()
    private var calls = 0
    private var claimed = false
    private var closedAsOriginal = false
    private var shown: ShownContent?
    private var moved: [String] = []
    private var faults: [HostFault] = []
    private var expiryCalled = false
    private var startedAt: ContinuousClock.Instant?
    private var finishedAt: ContinuousClock.Instant?

    /// Records `didReceive` being called now.
    func markStarted(at instant: ContinuousClock.Instant) {
        lock.lock(); defer { lock.unlock() }
        startedAt = instant
    }

    /// Counts a handler call and says what it is.
    func claim() -> Claim {
        lock.lock(); defer { lock.unlock() }
        calls += 1
        if closedAsOriginal {
            faults.append(HostFault(.handlerCalledLate, "content handler called after the original content was shown; ignored"))
            return .late
        }
        if claimed {
            faults.append(HostFault(.handlerCalledTwice, "content handler called \(calls) times; the first content was kept"))
            return .again
        }
        claimed = true
        return .first
    }

    /// Stores what the first handler call showed.
    func fulfil(shown: ShownContent, moved: [String], faults newFaults: [HostFault], at instant: ContinuousClock.Instant) {
        lock.lock(); defer { lock.unlock() }
        self.shown = shown
        self.moved = moved
        faults += newFaults
        finishedAt = instant
    }

    /// Shows the original content, unless a handler call got there first.
    /// - Returns: false when the handler had already claimed the request.
    func closeAsOriginal(_ original: ShownContent, at instant: ContinuousClock.Instant) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard !claimed else { return false }
        closedAsOriginal = true
        shown = original
        finishedAt = instant
        faults.append(HostFault(.handlerNeverCalled, "content handler not called before the budget and grace ran out; the original content was shown"))
        return true
    }

    /// Notes that `serviceExtensionTimeWillExpire()` was called while this request was in flight.
    func markExpiryCalled() {
        lock.lock(); defer { lock.unlock() }
        expiryCalled = true
    }

    /// True once `didReceive` was called and no content is shown yet.
    var isInFlight: Bool {
        lock.lock(); defer { lock.unlock() }
        return startedAt != nil && !claimed && !closedAsOriginal
    }

    /// True once the handler claimed the request (its content may still be being stored).
    var isClaimed: Bool {
        lock.lock(); defer { lock.unlock() }
        return claimed
    }

    /// True once something is shown.
    var isFinished: Bool {
        lock.lock(); defer { lock.unlock() }
        return shown != nil
    }

    /// The report, once finished.
    func report(identifier: String) -> HostReport? {
        lock.lock(); defer { lock.unlock() }
        guard let shown, let startedAt, let finishedAt else { return nil }
        let elapsed = finishedAt - startedAt
        let ms = Int(elapsed.components.seconds) * 1000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
        return HostReport(
            requestIdentifier: identifier, shown: shown, shownOriginal: closedAsOriginal, expiryCalled: expiryCalled,
            handlerCalls: calls, faults: faults, attachmentsMovedTo: moved, elapsedMs: ms,
            peakMemoryBytes: ProcessMemory.peakResidentBytes()
        )
    }
}
#endif
