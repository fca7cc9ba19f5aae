#if !canImport(UserNotifications)
import Foundation
@_spi(RichPushInternal) import RichPushCore
import UserNotificationsStandIn

/// One request's state in the host: handler calls, what was shown, faults.
///
/// The content handler may be called on any thread: every stored value is behind one lock.
final class RequestSlot: Sendable {
    /// What a handler call is, decided atomically.
    enum Claim {
        /// The first call, in time: its content is shown.
        case first
        /// A call after the first one (a fault; iOS keeps the first content).
        case again
        /// A call after the host showed the original (a fault; ignored).
        case late
    }

    /// Everything the slot records.
    private struct State {
        var calls = 0
        var claimed = false
        var closedAsOriginal = false
        var shown: ShownContent?
        var moved: [String] = []
        var faults: [HostFault] = []
        var expiryCalled = false
        var startedAt: ContinuousClock.Instant?
        var finishedAt: ContinuousClock.Instant?
    }

    private let state = Locked(State())

    /// Records `didReceive` being called now.
    func markStarted(at instant: ContinuousClock.Instant) {
        state.withLock { $0.startedAt = instant }
    }

    /// Counts a handler call and says what it is.
    func claim() -> Claim {
        state.withLock { s in
            s.calls += 1
            if s.closedAsOriginal {
                s.faults.append(HostFault(.handlerCalledLate, "content handler called after the original content was shown; ignored"))
                return .late
            }
            if s.claimed {
                s.faults.append(HostFault(.handlerCalledTwice, "content handler called \(s.calls) times; the first content was kept"))
                return .again
            }
            s.claimed = true
            return .first
        }
    }

    /// Stores what the first handler call showed.
    func fulfil(shown: ShownContent, moved: [String], faults newFaults: [HostFault], at instant: ContinuousClock.Instant) {
        state.withLock { s in
            s.shown = shown
            s.moved = moved
            s.faults += newFaults
            s.finishedAt = instant
        }
    }

    /// Shows the original content, unless a handler call got there first.
    /// - Returns: false when the handler had already claimed the request.
    func closeAsOriginal(_ original: ShownContent, at instant: ContinuousClock.Instant) -> Bool {
        state.withLock { s in
            guard !s.claimed else { return false }
            s.closedAsOriginal = true
            s.shown = original
            s.finishedAt = instant
            s.faults.append(
                HostFault(.handlerNeverCalled, "content handler not called before the budget and grace ran out; the original content was shown"))
            return true
        }
    }

    /// Notes that `serviceExtensionTimeWillExpire()` was called while this request was in flight.
    func markExpiryCalled() {
        state.withLock { $0.expiryCalled = true }
    }

    /// True once `didReceive` was called and no content is shown yet.
    var isInFlight: Bool {
        state.withLock { $0.startedAt != nil && !$0.claimed && !$0.closedAsOriginal }
    }

    /// True once the handler claimed the request (its content may still be being stored).
    var isClaimed: Bool {
        state.withLock { $0.claimed }
    }

    /// True once something is shown.
    var isFinished: Bool {
        state.withLock { $0.shown != nil }
    }

    /// The report, once finished.
    func report(identifier: String) -> HostReport? {
        let s = state.withLock { $0 }
        guard let shown = s.shown, let startedAt = s.startedAt, let finishedAt = s.finishedAt else { return nil }
        let elapsed = finishedAt - startedAt
        let ms = Int(elapsed.components.seconds) * 1000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
        return HostReport(
            requestIdentifier: identifier, shown: shown, shownOriginal: s.closedAsOriginal, expiryCalled: s.expiryCalled,
            handlerCalls: s.calls, faults: s.faults, attachmentsMovedTo: s.moved, elapsedMs: ms,
            peakMemoryBytes: ProcessMemory.peakResidentBytes()
        )
    }
}
#endif
