import CSQLite
import Foundation
import RichPushCore

/// One SQLite connection with a cache of prepared statements.
///
/// Not thread-safe: each connection is used by one thread at a time (the writer thread owns the
/// write connection; readers take the read connection under a lock).
final class SQLiteConnection {
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// The calls of `execute` (`BEGIN IMMEDIATE` is where a lock held elsewhere is waited on).
    let busyWatch = SQLiteBusyWatch()
    /// The file path, for messages.
    let path: String
    /// What to do when the file is not a SQLite database, in the caller's words.
    private let notADatabaseHint: String
    /// The setting that gave the file, for the error's `setting`.
    private let setting: StoreSettingNames.Setting?

    /// Opens (creating if needed) a database file.
    ///
    /// - Parameters:
    ///   - path: the file path.
    ///   - readOnly: open without write access.
    ///   - notADatabaseHint: what the user should do when the file turns out not to be a SQLite
    ///     database, naming the caller's setting by the program's name for it.
    ///   - setting: the setting that gave `path`, if any.
    /// - Throws: `RichPushError` `store` when the file cannot be opened.
    init(
        path: String, readOnly: Bool = false, notADatabaseHint: String = "give the path of a RichPush SQLite database",
        setting: StoreSettingNames.Setting? = nil
    ) throws {
        self.path = path
        self.notADatabaseHint = notADatabaseHint
        self.setting = setting
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw RichPushError(
                code: .store,
                message: "cannot open SQLite database '\(path)': \(message); check that the folder exists and is writable"
            )
        }
        handle = db
        sqlite3_busy_timeout(db, 10_000)
    }

    /// Sets how long a call waits on another connection's lock before `SQLITE_BUSY`.
    ///
    /// - Parameter seconds: the bound, in seconds.
    func setBusyTimeout(seconds: Double) { sqlite3_busy_timeout(handle, Int32(seconds * 1000)) }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements without results.
    ///
    /// - Parameters:
    ///   - sql: the SQL text.
    ///   - busyRetrySeconds: how long to retry when SQLite answers `SQLITE_BUSY` without waiting
    ///     on the busy handler (it does so for `PRAGMA journal_mode=WAL` while another connection
    ///     changes the journal mode of a new file); 0 = no retry.
    /// - Throws: `RichPushError` `store` with SQLite's message.
    func execute(_ sql: String, busyRetrySeconds: Double = 0) throws {
        let deadline = Date().addingTimeInterval(busyRetrySeconds)
        while true {
            var errorMessage: UnsafeMutablePointer<CChar>?
            busyWatch.began()
            let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
            busyWatch.ended(busy: rc & 0xFF == SQLITE_BUSY || rc & 0xFF == SQLITE_LOCKED)
            if rc == SQLITE_OK { return }
            let message = errorMessage.map { String(cString: $0) } ?? "error \(rc)"
            sqlite3_free(errorMessage)
            if rc & 0xFF == SQLITE_BUSY, Date() < deadline {
                usleep(UInt32.random(in: 2_000...20_000))
                continue
            }
            if let notDatabase = notADatabase(rc, message) { throw notDatabase }
            throw RichPushError(code: .store, message: "SQLite error in '\(sql.prefix(60))': \(message) (\(path))")
        }
    }

    /// A prepared statement for `sql`, prepared once and reused (reset and unbound).
    ///
    /// - Parameter sql: the SQL text with `?` parameters.
    /// - Returns: the statement, ready to bind.
    /// - Throws: `RichPushError` `store` when the SQL does not compile.
    func prepared(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] {
            statement.reset()
            return statement
        }
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard rc == SQLITE_OK, let raw else {
            throw error("prepare", sql: sql)
        }
        let statement = SQLiteStatement(handle: raw, connection: self)
        statements[sql] = statement
        return statement
    }

    /// Rows changed by the last INSERT/UPDATE/DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// An error for the last failed call.
    func error(_ action: String, sql: String) -> RichPushError {
        let message = String(cString: sqlite3_errmsg(handle))
        if let notDatabase = notADatabase(sqlite3_errcode(handle), message) { return notDatabase }
        return RichPushError(
            code: .store,
            message: "SQLite \(action) failed: \(message) in '\(sql.prefix(80))' (\(path))"
        )
    }

    /// The error for a file that is not SQLite at all (`SQLITE_NOTADB`, e.g. a JSON file given as the database),
    /// saying what to pass instead (`notADatabaseHint`); `nil` for any other result code.
    private func notADatabase(_ rc: Int32, _ message: String) -> RichPushError? {
        guard rc & 0xFF == SQLITE_NOTADB else { return nil }
        return RichPushError(
            code: .store,
            message: "'\(path)' is not a RichPush SQLite database (SQLite: \(message)); \(notADatabaseHint)",
            setting: setting?.rawValue, path: path
        )
    }
}
