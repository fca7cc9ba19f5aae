import Foundation
import RichPushCore

/// A few connections shared by one kind of work: the store has one pool for the receipt writers
/// (one connection per batch in flight) and one for readers (statistics, dashboard, health
/// probes) and `recordSend`, so reads never wait for a write and writes never wait for a read.
///
/// Checkout waits (up to `checkoutTimeout`) when every connection is busy.
// @unchecked: the idle connections and `closed` are touched only under `condition`
final class PostgresPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [PostgresConnection]
    private let availability: PostgresAvailability
    private var closed = false
    /// The number of connections.
    let size: Int
    /// The longest a caller waits for a free connection, in seconds.
    let checkoutTimeout: Double

    /// Opens `size` connections; connection i adds to counter slot `(firstSlot + i) % PostgresSchema.slots`.
    ///
    /// - Throws: `PostgresError` when one cannot connect.
    init(
        info: PostgresConnectionInfo, size: Int, firstSlot: Int = 0, sessionSetup: [String], availability: PostgresAvailability,
        checkoutTimeout: Double = 10
    ) throws {
        self.size = max(1, size)
        self.availability = availability
        self.checkoutTimeout = checkoutTimeout
        idle = try (0..<max(1, size)).map {
            try PostgresConnection(
                info: info, sessionSetup: sessionSetup, slot: (firstSlot + $0) % PostgresSchema.slots, deadline: availability.deadline)
        }
    }

    /// Runs `work` on a free connection (reconnected first if it was lost).
    ///
    /// - Parameter work: the statements.
    /// - Returns: what `work` returns.
    /// - Throws: `PostgresError`, or `RichPushError` `store` when the pool is closed or every
    ///   connection stayed busy for `checkoutTimeout`.
    func run<T>(_ work: (PostgresConnection) throws -> T) throws -> T {
        let connection = try checkout()
        defer { checkin(connection) }
        return try availability.run(on: connection, work)
    }

    /// Like `run(_:)`, but returns `nil` at once when every connection is busy (health probes).
    func runIfIdle<T>(_ work: (PostgresConnection) throws -> T) throws -> T? {
        let connection: PostgresConnection? = condition.withLock { closed ? nil : idle.popLast() }
        guard let connection else { return nil }
        defer { checkin(connection) }
        return try availability.run(on: connection, work)
    }

    private func checkout() throws -> PostgresConnection {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(checkoutTimeout)
        while idle.isEmpty && !closed {
            if !condition.wait(until: deadline) {
                throw RichPushError(code: .store, message: "all \(size) PostgreSQL connections stayed busy for \(Int(checkoutTimeout)) s; retry later")
            }
        }
        if closed { throw RichPushError(code: .store, message: "the PostgreSQL store is closed") }
        return idle.removeLast()
    }

    private func checkin(_ connection: PostgresConnection) {
        condition.withLock {
            if closed {
                connection.disconnect()
            } else {
                idle.append(connection)
            }
            condition.signal()
        }
    }

    /// Closes every idle connection; busy ones close when they come back.
    func close() {
        condition.withLock {
            closed = true
            for connection in idle { connection.disconnect() }
            idle.removeAll()
            condition.broadcast()
        }
    }
}
