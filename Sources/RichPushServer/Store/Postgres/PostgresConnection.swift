import CLibPQ
import Foundation
import RichPushCore

/// One libpq connection: blocking calls, text-format parameters and results, statements
/// prepared once per session.
///
/// Not thread-safe: one thread uses it at a time (the store's writer lock or the pool see to
/// it). After a failure that leaves the connection unusable (`PostgresError.connectionLost`) it
/// disconnects itself; `connect()` makes a new session (prepared statements are made again on
/// first use).
final class PostgresConnection {
    /// Where it connects.
    let info: PostgresConnectionInfo
    /// The counter slot this connection's writes add to (`PostgresSchema.slots`).
    let slot: Int
    private var handle: OpaquePointer?
    /// SQL text → name of the statement prepared in this session.
    private var prepared: [String: String] = [:]
    /// Statements run after each (re)connect, e.g. the session's `synchronous_commit`.
    private let sessionSetup: [String]
    /// When a statement last succeeded on this connection.
    private(set) var lastUsed = Date()
    /// The store's deadline for each call (`nil`: none, e.g. `migrate`'s own connections).
    let deadline: PostgresDeadline?
    /// Set while a call may legitimately wait long (the schema migration behind its advisory
    /// lock): the watchdog leaves it alone.
    var unbounded = false

    /// Connects.
    ///
    /// - Parameters:
    ///   - info: the parsed URL.
    ///   - sessionSetup: SQL run after every (re)connect.
    ///   - slot: the counter slot for this connection's writes.
    /// - Throws: `PostgresError` (`connectionLost`) when the server cannot be reached or refuses.
    init(info: PostgresConnectionInfo, sessionSetup: [String] = [], slot: Int = 0, deadline: PostgresDeadline? = nil) throws {
        self.info = info
        self.slot = slot
        self.deadline = deadline
        self.sessionSetup = sessionSetup + (deadline == nil ? [] : PostgresDeadline.sessionSetup)
        try connect()
    }

    deinit { disconnect() }

    /// Whether the session is up (as far as libpq knows without a round trip).
    var isConnected: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Opens a new session (closing the old one, if any) and runs the session setup.
    ///
    /// - Throws: `PostgresError` with libpq's message, e.g. `connection to server at
    ///   "127.0.0.1", port 5432 failed: Connection refused`.
    func connect() throws {
        disconnect()
        let connection = guarded(socket: -1) { info.withConnectParameters { keys, values in PQconnectdbParams(keys, values, 1) } }
        guard let connection else {
            throw PostgresError(sqlState: nil, message: "libpq could not allocate a connection (out of memory)", connectionLost: true)
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.firstLines(PQerrorMessage(connection).map { String(cString: $0) } ?? "unknown error")
            PQfinish(connection)
            throw PostgresError(sqlState: nil, message: message, connectionLost: true)
        }
        handle = connection
        for sql in sessionSetup { _ = try execute(sql) }
    }

    /// Closes the session (`PQfinish`).
    func disconnect() {
        if let handle { PQfinish(handle) }
        handle = nil
        prepared.removeAll()
    }

    /// Runs one statement (or, without parameters and unprepared, several separated by `;`).
    ///
    /// A single statement outside `BEGIN … COMMIT` is its own transaction, and libpq returns
    /// only after the server's ReadyForQuery, which follows that transaction's COMMIT (with
    /// `synchronous_commit=on`, after the WAL flush); a COMMIT that fails comes back as an error.
    ///
    /// - Parameters:
    ///   - sql: the SQL, with `$1`, `$2`… placeholders.
    ///   - parameters: text values (`nil` = SQL NULL). U+0000, which PostgreSQL text cannot
    ///     hold, becomes U+FFFD.
    ///   - prepare: prepare the statement once per session and reuse it (hot statements).
    /// - Returns: the result rows.
    /// - Throws: `PostgresError`.
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = [], prepare: Bool = false) throws -> PostgresResult {
        guard let connection = handle, PQstatus(connection) == CONNECTION_OK else {
            disconnect()
            throw PostgresError(sqlState: nil, message: "not connected", connectionLost: true)
        }
        let result: OpaquePointer?
        if parameters.isEmpty && !prepare {
            result = guarded(socket: PQsocket(connection)) { PQexec(connection, sql) }
        } else {
            let name = prepare ? try preparedName(sql, parameterCount: parameters.count, connection: connection) : nil
            result = guarded(socket: PQsocket(connection)) {
                Self.withCStrings(parameters) { values in
                    if let name {
                        return PQexecPrepared(connection, name, Int32(parameters.count), values, nil, nil, 0)
                    }
                    return PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
                }
            }
        }
        do {
            let checked = try check(result, connection: connection)
            lastUsed = Date()
            deadline?.succeeded()
            return checked
        } catch let error as PostgresError {
            // 57014 query_canceled (statement_timeout), 55P03 lock_not_available (lock_timeout).
            if error.sqlState == "57014" || error.sqlState == "55P03" { deadline?.stalled() }
            throw error
        }
    }

    /// A parameter of `execute(_:binary:resultsInBinary:)`: text, or bytes sent as they are.
    enum Parameter {
        /// Text (`nil` = SQL NULL).
        case text(String?)
        /// Bytes in binary format (a `bytea`): no hex, no escaping, no copy into text.
        case bytes(Data)
    }

    /// Runs one statement whose parameters may be bytes, with its results in binary format when
    /// asked (`bytea` columns then come back as their bytes, not twice as many hex digits).
    ///
    /// - Parameters:
    ///   - sql: the SQL, with `$1`, `$2`… placeholders.
    ///   - parameters: the values.
    ///   - resultsInBinary: whether every result column comes back in binary format.
    /// - Returns: the result rows.
    /// - Throws: `PostgresError`.
    @discardableResult
    func execute(_ sql: String, binary parameters: [Parameter], resultsInBinary: Bool) throws -> PostgresResult {
        guard let connection = handle, PQstatus(connection) == CONNECTION_OK else {
            disconnect()
            throw PostgresError(sqlState: nil, message: "not connected", connectionLost: true)
        }
        var buffers: [Data?] = parameters.map { parameter in
            switch parameter {
            case .text(let text): return text.map { Data($0.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}").utf8 + [0]) }
            case .bytes(let data): return data
            }
        }
        let lengths: [Int32] = parameters.enumerated().map { index, parameter in
            if case .bytes(let data) = parameter { return Int32(clamping: data.count) }
            return Int32(max(0, (buffers[index]?.count ?? 1) - 1))
        }
        let formats: [Int32] = parameters.map { if case .bytes = $0 { return 1 } else { return 0 } }
        let result: OpaquePointer? = guarded(socket: PQsocket(connection)) {
            Self.withPointers(&buffers) { values in
                PQexecParams(connection, sql, Int32(parameters.count), nil, values, lengths, formats, resultsInBinary ? 1 : 0)
            }
        }
        do {
            let checked = try check(result, connection: connection)
            lastUsed = Date()
            deadline?.succeeded()
            return checked
        } catch let error as PostgresError {
            if error.sqlState == "57014" || error.sqlState == "55P03" { deadline?.stalled() }
            throw error
        }
    }

    /// Calls `body` with pointers to each buffer's bytes (`nil` stays a null pointer).
    private static func withPointers<T>(_ buffers: inout [Data?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        let copies: [UnsafeMutableRawPointer?] = buffers.map { data in
            guard let data else { return nil }
            let copy = malloc(max(1, data.count))
            data.withUnsafeBytes { raw in if let base = raw.baseAddress, let copy { memcpy(copy, base, data.count) } }
            return copy
        }
        defer { for copy in copies { free(copy) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    /// Runs one blocking libpq call under the store's deadline (`PostgresDeadline`), when it has one.
    private func guarded<T>(socket: Int32, _ call: () -> T) -> T {
        guard let deadline, !unbounded else { return call() }
        return deadline.guarding(socket: socket, call).value
    }

    /// The name of `sql` prepared in this session, preparing it on first use.
    private func preparedName(_ sql: String, parameterCount: Int, connection: OpaquePointer) throws -> String {
        if let name = prepared[sql] { return name }
        let name = "richpush_\(prepared.count + 1)"
        _ = try check(guarded(socket: PQsocket(connection)) { PQprepare(connection, name, sql, Int32(parameterCount), nil) }, connection: connection)
        prepared[sql] = name
        return name
    }

    /// Wraps a finished `PGresult`, or throws its error (disconnecting when the session is lost).
    private func check(_ raw: OpaquePointer?, connection: OpaquePointer) throws -> PostgresResult {
        guard let raw else {
            let message = Self.firstLines(PQerrorMessage(connection).map { String(cString: $0) } ?? "no result")
            let lost = PQstatus(connection) != CONNECTION_OK
            if lost { disconnect() }
            throw PostgresError(sqlState: nil, message: message, connectionLost: lost)
        }
        let result = PostgresResult(handle: raw)
        switch PQresultStatus(raw) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return result
        default:
            let sqlState = PQresultErrorField(raw, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let primary = PQresultErrorField(raw, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            let message = primary ?? Self.firstLines(PQresultErrorMessage(raw).map { String(cString: $0) } ?? "unknown error")
            let error = PostgresError(
                sqlState: sqlState, message: message, connectionLost: PQstatus(connection) != CONNECTION_OK)
            if error.connectionLost { disconnect() }
            throw error
        }
    }

    /// libpq messages end in a newline and may carry a hint line: keep both, on one line.
    private static func firstLines(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    /// Calls `body` with NUL-terminated copies of `values` (`nil` stays a null pointer).
    private static func withCStrings<T>(_ values: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        let copies: [UnsafeMutablePointer<CChar>?] = values.map { value in
            guard var text = value else { return nil }
            if text.utf8.contains(0) { text = text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") }
            return strdup(text)
        }
        defer { for copy in copies { free(copy) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
