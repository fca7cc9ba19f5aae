import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Whether the database answers, shared by every connection of one store: it runs each piece of
/// work on a connection, reconnecting that connection first when it was lost, and keeps the
/// store's state (up, or down since a connect failed, and why) for `/healthz`, the 503s and the log.
///
/// While the database is down, a lost connection tries to reconnect at most once per
/// `retryInterval` (any connection's attempt counts), so a flood of receipts gets `503` at once
/// instead of each waiting on a connect; the first attempt after the database is back succeeds
/// and the store is up again. Transitions are logged once each (with host and port, for the
/// operator), never per request.
final class PostgresAvailability: Sendable {
    /// What is known about the database, behind one lock.
    private struct State {
        var downSince: Date?
        var lastError: String?
        var nextAttempt = Date.distantPast
        var lastContact = Date.distantPast
    }

    private let state = Locked(State())
    private let info: PostgresConnectionInfo
    private let log: @Sendable (String) -> Void
    /// The shortest time between two reconnect attempts while the database is down, in seconds.
    let retryInterval: Double
    /// A connection idle this long (seconds) is tested before use.
    let idleCheck: Double
    /// The deadline of every call of the store's connections.
    let deadline = PostgresDeadline()

    init(info: PostgresConnectionInfo, retryInterval: Double = 0.5, idleCheck: Double = 10, log: @escaping @Sendable (String) -> Void) {
        self.info = info
        self.retryInterval = retryInterval
        self.idleCheck = idleCheck
        self.log = log
    }

    /// `nil` while up; since when the database has been unreachable otherwise.
    var unavailableSince: Date? { state.withLock { $0.downSince } }

    /// When a statement last succeeded.
    var lastSuccess: Date { state.withLock { $0.lastContact } }

    /// Runs `work` on `connection`, reconnecting it first when it is not connected.
    ///
    /// A connection idle for `idleCheck` seconds or more is tested with `SELECT 1` first (a
    /// proxy or firewall may have dropped it meanwhile): if that finds it dead, it is made again
    /// before `work` runs, so work is never sent into a dead session. `work` itself is never
    /// run twice: a connection lost during it may or may not have committed, so the caller
    /// answers "not stored" (503) and the client's retry is deduplicated by the receipt key.
    /// The lost connection is made again at once, and if that fails the store is down.
    ///
    /// - Parameters:
    ///   - connection: the connection (used by this thread only, for the duration).
    ///   - work: the statements.
    /// - Returns: what `work` returns.
    /// - Throws: `PostgresError` (`connectionLost` when the database could not be reached).
    func run<T>(on connection: PostgresConnection, _ work: (PostgresConnection) throws -> T) throws -> T {
        if connection.isConnected, Date().timeIntervalSince(connection.lastUsed) >= idleCheck {
            _ = try? connection.execute("SELECT 1")
        }
        if !connection.isConnected {
            let waitUntil = state.withLock { $0.downSince == nil ? Date.distantPast : $0.nextAttempt }
            if Date() < waitUntil {
                throw PostgresError(sqlState: nil, message: state.withLock { $0.lastError } ?? "reconnecting", connectionLost: true)
            }
            do {
                try connection.connect()
            } catch let error as PostgresError {
                failed(error)
                throw error
            }
        }
        do {
            let value = try work(connection)
            succeeded()
            return value
        } catch let error as PostgresError where error.connectionLost {
            // Reconnect at once (without running `work` again): a failure marks the store down
            // now, so the next receipts get 503 at once and /healthz tells.
            do {
                try connection.connect()
                succeeded()
            } catch let connectError as PostgresError {
                failed(connectError)
            }
            throw error
        }
    }

    /// Records a statement that reached the server.
    func succeeded() {
        let cameBack: TimeInterval? = state.withLock { state in
            state.lastContact = Date()
            guard let since = state.downSince else { return nil }
            state.downSince = nil
            state.lastError = nil
            state.nextAttempt = .distantPast
            return Date().timeIntervalSince(since)
        }
        if let cameBack {
            log("richpush: PostgreSQL at \(info.endpoint) is reachable again after \(String(format: "%.1f", cameBack)) s; storing receipts again")
        }
    }

    /// Records a failed connect: the database is down until a statement succeeds again.
    func failed(_ error: PostgresError) {
        let first: Bool = state.withLock { state in
            state.nextAttempt = Date().addingTimeInterval(retryInterval)
            state.lastError = error.message
            guard state.downSince == nil else { return false }
            state.downSince = Date()
            return true
        }
        if first {
            log(
                "richpush: PostgreSQL at \(info.endpoint) is unreachable (\(error.message)); receipts get 503 until it is back; reconnecting every \(retryInterval) s"
            )
        }
    }
}
