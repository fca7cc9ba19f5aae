import CSQLite
import Foundation
import RichPushCore

/// A prepared SQLite statement: bind, step, read columns.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    /// SQLite's `SQLITE_TRANSIENT`: copy bound text now (the macro does not import into Swift).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and clears its bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds parameters in order (1-based in SQLite): `String`, `Int`, `Double` or `nil`.
    ///
    /// - Parameter values: the values.
    /// - Throws: `RichPushError` `store` when a bind fails.
    func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let i): rc = sqlite3_bind_int64(handle, index, Int64(i))
            case .real(let d): rc = sqlite3_bind_double(handle, index, d)
            case .text(let s): rc = sqlite3_bind_text(handle, index, s, -1, Self.transient)
            case .blob(let d):
                rc = d.withUnsafeBytes {
                    sqlite3_bind_blob64(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64($0.count), Self.transient)
                }
            }
            if rc != SQLITE_OK { throw connection.error("bind", sql: String(cString: sqlite3_sql(handle))) }
        }
    }

    /// Runs a statement that returns no rows.
    ///
    /// - Throws: `RichPushError` `store`.
    func run() throws {
        let rc = sqlite3_step(handle)
        defer { sqlite3_reset(handle) }
        if rc != SQLITE_DONE && rc != SQLITE_ROW {
            throw connection.error("step", sql: String(cString: sqlite3_sql(handle)))
        }
    }

    /// Steps to the next row.
    ///
    /// - Returns: `true` when a row is available, `false` when done.
    /// - Throws: `RichPushError` `store`.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw connection.error("step", sql: String(cString: sqlite3_sql(handle)))
    }

    /// Reads every row with `read`, then resets.
    func rows<T>(_ read: (SQLiteStatement) -> T) throws -> [T] {
        defer { sqlite3_reset(handle) }
        var out: [T] = []
        while try step() { out.append(read(self)) }
        return out
    }

    /// Column `i` (0-based) as an integer, `nil` when NULL.
    func int(_ i: Int32) -> Int? {
        sqlite3_column_type(handle, i) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(handle, i))
    }

    /// Column `i` (0-based) as a double, `nil` when NULL.
    func double(_ i: Int32) -> Double? {
        sqlite3_column_type(handle, i) == SQLITE_NULL ? nil : sqlite3_column_double(handle, i)
    }

    /// Column `i` (0-based) as bytes, `nil` when NULL.
    func data(_ i: Int32) -> Data? {
        guard sqlite3_column_type(handle, i) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(handle, i))
        guard count > 0, let p = sqlite3_column_blob(handle, i) else { return Data() }
        return Data(bytes: p, count: count)
    }

    /// Column `i` (0-based) as text, `nil` when NULL.
    func text(_ i: Int32) -> String? {
        guard let p = sqlite3_column_text(handle, i) else { return nil }
        return String(cString: p)
    }
}
