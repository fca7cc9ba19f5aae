import CLibPQ
import Foundation
@_spi(RichPushInternal) import RichPushCore

#if canImport(Glibc)
import Glibc
#endif

/// Wake-ups from PostgreSQL (`LISTEN` / `NOTIFY`): one session of its own per store, on a thread
/// of its own, listening on `channels`; a write that gives idle loops work (a campaign created, a
/// chunk released, a webhook event written) runs `NOTIFY` in its transaction, and PostgreSQL
/// delivers it to every listening instance at COMMIT. An idle campaign worker or webhook loop
/// then waits for a notification instead of querying the store several times a second, with a
/// slow poll as the fallback (`wait(for:sinceGeneration:timeoutMs:)` returns at its timeout
/// anyway), so nothing is lost while the session is down: after a reconnect every channel counts
/// as notified (what was sent meanwhile is not known).
///
/// Started on first use (`generation(of:)`), stopped by `stop()`; a store that never waits
/// (`richpush migrate`) opens no session.
final class PostgresListener: StoreChangeFeed {
    /// Campaign work (`PostgresStore+Campaigns`), on the channel `richpush_campaigns`.
    static let campaigns = StoreChange.campaigns
    /// Webhook events (`PostgresStore+Webhooks`), on the channel `richpush_webhooks`.
    static let webhooks = StoreChange.webhooks
    /// The channels every listener listens on.
    static let channels = StoreChange.allCases.map(channel)

    /// The `NOTIFY` channel of `change`.
    ///
    /// - Parameter change: the kind of change.
    /// - Returns: `richpush_campaigns` or `richpush_webhooks`.
    static func channel(_ change: StoreChange) -> String { "richpush_" + change.rawValue }

    private let info: PostgresConnectionInfo
    private let log: @Sendable (String) -> Void
    /// Per change, how many notifications arrived (and +1 for every reconnect).
    private let generations = ChangeGenerations()
    private let state = Locked<(started: Bool, stopped: Bool, listening: Bool, sessions: Int)>((false, false, false, 0))

    /// - Parameters:
    ///   - info: the database (its application name gets ` listen`).
    ///   - log: where a lost session is reported.
    init(info: PostgresConnectionInfo, log: @escaping @Sendable (String) -> Void) {
        self.info = (try? PostgresConnectionInfo(url: info.url, applicationName: info.applicationName + " listen")) ?? info
        self.log = log
    }

    /// Whether the session is up and listening (tests wait for it).
    var isListening: Bool { state.withLock { $0.listening } }
    /// How many listening sessions were made so far (1 after the start, +1 per reconnect).
    var sessions: Int { state.withLock { $0.sessions } }

    /// Every instance's writes reach the feed (at their COMMIT), while the session is up.
    var seesEveryWriter: Bool { true }

    /// How many wake-ups `change` has had; starts the listener on first use.
    ///
    /// - Parameter change: the kind of change.
    /// - Returns: the count, to pass to `wait`.
    func generation(of change: StoreChange) -> Int {
        let start = state.withLock { state in
            defer { state.started = true }
            return !state.started && !state.stopped
        }
        if start {
            let thread = Thread { [self] in self.run() }
            thread.name = "richpush.postgres.listen"
            thread.start()
        }
        return generations.generation(of: change)
    }

    /// Waits until `change` is notified after `generation` was read, or `timeoutMs` passed, or the
    /// listener stops, or a graceful shutdown is requested (checking every 20 ms: no query, no
    /// system call beyond a sleep).
    ///
    /// - Parameters:
    ///   - change: the kind of change.
    ///   - generation: what `generation(of:)` answered before the caller last looked for work.
    ///   - timeoutMs: the slow poll's interval, ms.
    /// - Returns: `true` when notified, `false` at the timeout.
    func wait(for change: StoreChange, sinceGeneration generation: Int, timeoutMs: Int) async -> Bool {
        await generations.wait(for: change, sinceGeneration: generation, timeoutMs: timeoutMs) { [self] in self.isStopped }
    }

    /// Stops the thread (within about 0.2 s) and closes the session.
    func stop() {
        state.withLock { $0.stopped = true }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func wakeAll() {
        generations.bump(StoreChange.allCases)
    }

    /// Connects, listens, and reads notifications until stopped; reconnects 1 s after a loss.
    private func run() {
        var reported = false
        while !isStopped {
            guard let connection = listeningConnection() else {
                if !reported { log("richpush serve: PostgreSQL LISTEN session lost; idle loops poll until it is back") }
                reported = true
                Thread.sleep(forTimeInterval: 1)
                continue
            }
            reported = false
            // Whatever was notified while no session listened is unknown: everyone looks once
            // (before `isListening` turns true, so a caller that saw it true is past this wake).
            wakeAll()
            state.withLock { state in
                state.listening = true
                state.sessions += 1
            }
            while !isStopped {
                var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, 200)
                if ready < 0 && errno != EINTR { break }
                if ready > 0 {
                    guard PQconsumeInput(connection) == 1 else { break }
                    var woken: [String] = []
                    while let notification = PQnotifies(connection) {
                        if let name = notification.pointee.relname { woken.append(String(cString: name)) }
                        PQfreemem(notification)
                    }
                    generations.bump(StoreChange.allCases.filter { woken.contains(Self.channel($0)) })
                }
                if PQstatus(connection) != CONNECTION_OK { break }
            }
            state.withLock { $0.listening = false }
            PQfinish(connection)
        }
    }

    /// A new session that listens on every channel, `nil` when it cannot be made.
    private func listeningConnection() -> OpaquePointer? {
        guard let connection = info.withConnectParameters({ keys, values in PQconnectdbParams(keys, values, 1) }) else { return nil }
        guard PQstatus(connection) == CONNECTION_OK else {
            PQfinish(connection)
            return nil
        }
        let sql = Self.channels.map { "LISTEN \($0)" }.joined(separator: "; ")
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            PQfinish(connection)
            return nil
        }
        return connection
    }
}
