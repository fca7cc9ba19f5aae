import Foundation
@_spi(RichPushInternal) import RichPushCore

/// The deadline of the SQLite writer (issue 22, item 1): once the store is open, its busy
/// timeout is `busySeconds` (2 s), so a write waiting on another connection's or process's lock
/// (`BEGIN IMMEDIATE` or `EXCLUSIVE` held elsewhere) fails with `SQLITE_BUSY` within that and its
/// receipts get `503`. It also remembers, for `/healthz`, a call still waiting past the bound and
/// whether the latest call was busy (until one succeeds again).
final class SQLiteBusyWatch: Sendable {
    /// The writer's busy timeout once the store is open, in seconds (opening keeps 10 s: several
    /// processes opening one new file wait on each other's schema migration).
    static let busySeconds = 2.0

    private struct State {
        var outstandingSince: Date?
        var lastBusy = Date.distantPast
        var lastSuccess = Date.distantPast
    }

    private let state = Locked(State())

    /// Records the start of a call.
    func began() { state.withLock { $0.outstandingSince = Date() } }

    /// Records the end of a call.
    ///
    /// - Parameter busy: whether it failed with `SQLITE_BUSY` / `SQLITE_LOCKED`.
    func ended(busy: Bool) {
        state.withLock { state in
            state.outstandingSince = nil
            if busy { state.lastBusy = Date() } else { state.lastSuccess = Date() }
        }
    }

    /// Whether the latest call was busy (so a probe should tell whether the lock is gone).
    var isStalled: Bool { state.withLock { $0.lastBusy > $0.lastSuccess } }

    /// Why the store should be reported unavailable now, or `nil`.
    var stallReason: String? {
        let now = Date()
        return state.withLock { state in
            if let since = state.outstandingSince, now.timeIntervalSince(since) > Self.busySeconds {
                return
                    "a write has been waiting \(String(format: "%.1f", now.timeIntervalSince(since))) s for the database lock (bound \(Int(Self.busySeconds)) s)"
            }
            if state.lastBusy > state.lastSuccess {
                return "the database is locked by another connection (busy for more than \(Int(Self.busySeconds)) s)"
            }
            return nil
        }
    }
}
