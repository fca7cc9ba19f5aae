import CLibPQ
import Foundation
@_spi(RichPushInternal) import RichPushCore

#if canImport(Glibc)
import Glibc
#endif

/// The deadline of every PostgreSQL call of one store (issue 22, item 1), in two layers:
///
/// - On the server, each session sets `statement_timeout` (`statementSeconds`, 2 s) and
///   `lock_timeout` (`lockSeconds`, 1 s): a statement waiting on another session's lock
///   (`LOCK TABLE receipts IN ACCESS EXCLUSIVE MODE`) or running long is cancelled by the server
///   (SQLSTATE 55P03 / 57014) and its receipts get `503`.
/// - On the client, a watchdog thread cuts the socket (`shutdown(2)`) of a call still waiting
///   `watchdogSeconds` (3 s) after it was sent: a frozen server (its processes stopped with
///   SIGSTOP, a host that stopped answering) answers neither the query nor its own
///   `statement_timeout`, and `PQcancel` would itself wait on the frozen postmaster (it opens a new
///   connection to it), so the socket is closed under libpq instead, which then returns at once
///   with the connection lost. Connects are bounded by libpq's `connect_timeout` (2 s, see
///   `PostgresConnectionInfo`).
///
/// A receipt therefore gets its answer within about `watchdogSeconds` + `connect_timeout` (5 s)
/// however the database hangs, and `/healthz` turns 503 once any call has been outstanding past
/// `statementSeconds` or the latest call was cut or timed out (until one succeeds again).
final class PostgresDeadline: Sendable {
    /// The server-side `statement_timeout`, in seconds.
    static let statementSeconds = 2.0
    /// The server-side `lock_timeout`, in seconds.
    static let lockSeconds = 1.0
    /// How long a call may wait before the watchdog cuts its connection, in seconds: after the
    /// server's own timeouts, so a live server always answers first.
    static let watchdogSeconds = 3.0

    /// The settings every session runs after connecting.
    static let sessionSetup = [
        "SET statement_timeout = '\(Int(statementSeconds * 1000))ms'", "SET lock_timeout = '\(Int(lockSeconds * 1000))ms'",
    ]

    private struct Call {
        var started: Date
        var socket: Int32
        var cut = false
    }

    private struct State {
        var calls: [Int: Call] = [:]
        var nextID = 0
        var lastStall = Date.distantPast
        var lastSuccess = Date.distantPast
        var watching = false
    }

    private let state = Locked(State())

    /// Runs one blocking libpq call on `socket` (-1 while connecting) under the deadline.
    ///
    /// - Parameters:
    ///   - socket: `PQsocket` of the connection, or -1 (registered, never cut).
    ///   - body: the call.
    /// - Returns: what `body` returns, and whether the watchdog cut the connection meanwhile.
    func guarding<T>(socket: Int32, _ body: () throws -> T) rethrows -> (value: T, cut: Bool) {
        let id = state.withLock { state in
            state.nextID += 1
            state.calls[state.nextID] = Call(started: Date(), socket: socket)
            return state.nextID
        }
        startWatchdog()
        defer {
            _ = state.withLock { state in state.calls.removeValue(forKey: id) }
        }
        let value = try body()
        return (value, state.withLock { $0.calls[id]?.cut ?? false })
    }

    /// Records a call that the server answered in time.
    func succeeded() { state.withLock { $0.lastSuccess = Date() } }

    /// Records a call that was cut or cancelled by a timeout.
    func stalled() { state.withLock { $0.lastStall = Date() } }

    /// Why the store should be reported unavailable now, or `nil`.
    var stallReason: String? {
        let now = Date()
        return state.withLock { state in
            if let oldest = state.calls.values.map(\.started).min(), now.timeIntervalSince(oldest) > Self.statementSeconds {
                return "a database call has been waiting \(String(format: "%.1f", now.timeIntervalSince(oldest))) s (bound \(Int(Self.statementSeconds)) s)"
            }
            if state.lastStall > state.lastSuccess {
                return
                    "the latest database call timed out (statement_timeout \(Int(Self.statementSeconds)) s, lock_timeout \(Int(Self.lockSeconds)) s, or no answer in \(Int(Self.watchdogSeconds)) s)"
            }
            return nil
        }
    }

    private func startWatchdog() {
        let start = state.withLock { state in
            defer { state.watching = true }
            return !state.watching
        }
        guard start else { return }
        let thread = Thread { [weak self] in
            while let self {
                self.cutOverdue()
                usleep(100_000)
            }
        }
        thread.name = "richpush-pg-deadline"
        thread.start()
    }

    /// Shuts down the socket of every call past `watchdogSeconds` (once each).
    private func cutOverdue() {
        let now = Date()
        state.withLock { state in
            for (id, call) in state.calls where !call.cut && call.socket >= 0 && now.timeIntervalSince(call.started) >= Self.watchdogSeconds {
                state.calls[id]?.cut = true
                state.lastStall = now
                // Under the lock, while the call is registered, so the fd is still this
                // connection's; it stays open (libpq closes it in PQfinish): shutdown only ends
                // the blocked read or write.
                _ = shutdown(call.socket, Int32(SHUT_RDWR))
            }
        }
    }
}
