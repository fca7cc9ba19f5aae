import Foundation

/// A few read-only connections to one SQLite file, so dashboard loads and single-push lookups run
/// side by side (WAL lets readers run while the writer commits, and each other) instead of
/// queueing behind one connection: a `GET /v1/pushes/{id}` does not wait for four dashboards.
///
/// Each connection maps up to 256 MB of the file (`mmap_size`: index pages are read without a
/// system call) and caches 8 MB of pages.
// @unchecked: the idle connections are touched only under `condition`
final class SQLiteReaderPool: @unchecked Sendable {
    /// Connections in the pool: 4 (about the server threads on a small machine; more readers
    /// than cores gain nothing).
    static let size = 4

    private let condition = NSCondition()
    private var idle: [SQLiteConnection]

    /// Opens the connections.
    ///
    /// - Parameter path: the database file.
    /// - Throws: `RichPushError` `store` when a connection cannot be opened.
    init(path: String) throws {
        var connections: [SQLiteConnection] = []
        for _ in 0..<Self.size {
            let connection = try SQLiteConnection(path: path)
            try connection.execute("PRAGMA query_only=ON")
            try connection.execute("PRAGMA mmap_size=268435456")
            try connection.execute("PRAGMA cache_size=-8000")
            connections.append(connection)
        }
        idle = connections
    }

    /// Runs `body` with a connection of its own (waits while all are busy).
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        let connection: SQLiteConnection = condition.withLock {
            while idle.isEmpty { condition.wait() }
            return idle.removeLast()
        }
        defer {
            condition.withLock {
                idle.append(connection)
                condition.signal()
            }
        }
        return try body(connection)
    }
}
