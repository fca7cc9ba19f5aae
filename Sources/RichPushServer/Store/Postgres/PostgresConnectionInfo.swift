import CLibPQ
import Foundation
import RichPushCore

/// A `postgres://` / `postgresql://` URL as libpq reads it, plus what RichPush needs to talk
/// about it without leaking secrets: the host and port for error messages and a redacted URL for
/// banners and logs (never the password, never the query string's values).
///
/// The URL itself is handed to libpq unchanged (`PQconnectdbParams` with `expand_dbname`), so
/// every libpq parameter works in its query string (`sslmode`, `sslrootcert`,
/// `target_session_attrs`, `options=-csearch_path%3Drichpush`, several `host`s, …); the
/// environment (`PGPASSWORD`, `PGSSLMODE`, `~/.pgpass`) fills what the URL leaves out, as for
/// `psql`. RichPush adds defaults that the URL can override (`connect_timeout=2`, libpq's least, part of `PostgresDeadline`,
/// `application_name`, TCP keepalives and `tcp_user_timeout=15000` so a vanished server is
/// noticed within seconds), and always sets `client_encoding=UTF8` (its strings are UTF-8).
public struct PostgresConnectionInfo: Sendable, Equatable {
    /// The URL exactly as given (may hold a password: never print it).
    let url: String
    /// `host` (or `hostaddr`), `nil` = libpq's default (the local Unix socket).
    public let host: String?
    /// `port`, `nil` = libpq's default (5432).
    public let port: String?
    /// The database name, `nil` = libpq's default (the user name).
    public let database: String?
    /// The user name, `nil` = libpq's default (the operating-system user).
    public let user: String?
    /// `application_name` shown in `pg_stat_activity`, e.g. `richpush serve`.
    public let applicationName: String

    /// The scheme prefixes that select the PostgreSQL store.
    public static let schemes = ["postgres://", "postgresql://"]

    /// Whether `value` is a PostgreSQL URL (`postgres://` or `postgresql://`, any case).
    ///
    /// - Parameter value: a `--db` / `--to` value.
    /// - Returns: `true` for a PostgreSQL URL.
    public static func isPostgresURL(_ value: String) -> Bool {
        let lower = value.lowercased()
        return schemes.contains { lower.hasPrefix($0) }
    }

    /// Parses and checks a URL with libpq's own parser (`PQconninfoParse`).
    ///
    /// - Parameters:
    ///   - url: `postgres://[user[:password]@][host][:port][/dbname][?param=value&…]`.
    ///   - applicationName: shown in `pg_stat_activity` (default `richpush`).
    /// - Throws: `RichPushError` `configuration` naming what libpq refused (the message shows the
    ///   URL without its password).
    public init(url: String, applicationName: String = "richpush") throws {
        guard Self.isPostgresURL(url) else {
            throw RichPushError(
                code: .configuration,
                message: "'\(Self.redact(url))' is not a PostgreSQL URL; use postgres://user@host:5432/dbname (or postgresql://…)"
            )
        }
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &error) else {
            let reason = error.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "out of memory"
            if let error { PQfreemem(error) }
            throw RichPushError(
                code: .configuration,
                message:
                    "'\(Self.redact(url))' is not a valid PostgreSQL URL (libpq: \(reason)); the form is postgres://user[:password]@host[:port]/dbname[?sslmode=require&…]"
            )
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var index = 0
        while let keyword = options[index].keyword {
            if let value = options[index].val { values[String(cString: keyword)] = String(cString: value) }
            index += 1
        }
        self.url = url
        let host = values["host"] ?? values["hostaddr"]
        self.host = host?.isEmpty == true ? nil : host
        self.port = values["port"]?.isEmpty == true ? nil : values["port"]
        self.database = values["dbname"]?.isEmpty == true ? nil : values["dbname"]
        self.user = values["user"]?.isEmpty == true ? nil : values["user"]
        self.applicationName = applicationName
    }

    /// `host:port` for messages, e.g. `db.internal:5432` or `the local socket (port 5432)`.
    public var endpoint: String {
        let port = self.port ?? "5432"
        guard let host else { return "the local socket (port \(port))" }
        if host.hasPrefix("/") { return "the socket in \(host) (port \(port))" }
        return host.contains(":") && !host.contains(",") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The URL without password and query values: `postgresql://user@host:port/dbname`.
    public var redacted: String {
        var out = "postgresql://"
        if let user { out += user + "@" }
        if let host, !host.hasPrefix("/") { out += host.contains(":") && !host.contains(",") ? "[\(host)]" : host }
        if let port { out += ":" + port }
        out += "/" + (database ?? "")
        if let host, host.hasPrefix("/") { out += "?host=" + host }
        return out
    }

    /// Removes the password and query string from a URL-like text, for messages about a URL
    /// that did not parse: `postgres://app:secret@h/db?sslpassword=x` → `postgres://app:***@h/db?…`.
    ///
    /// - Parameter text: the text.
    /// - Returns: the text with secrets masked.
    public static func redact(_ text: String) -> String {
        var out = text
        if let query = out.firstIndex(of: "?") { out = String(out[..<query]) + "?…" }
        guard let scheme = out.range(of: "://") else { return out }
        let rest = out[scheme.upperBound...]
        guard let at = rest.lastIndex(of: "@") else { return out }
        let credentials = rest[..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return out }
        return String(out[..<scheme.upperBound]) + credentials[..<colon] + ":***" + out[at...]
    }

    /// Calls `body` with the keyword and value arrays for `PQconnectdbParams(…, expand_dbname: 1)`:
    /// RichPush's overridable defaults, then the URL as `dbname` (expanded by libpq, so its
    /// parameters override the defaults), then `client_encoding=UTF8`.
    func withConnectParameters<T>(
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?) -> T
    ) -> T {
        let pairs: [(String, String)] = [
            ("connect_timeout", "2"),
            ("application_name", applicationName),
            ("keepalives", "1"),
            ("keepalives_idle", "10"),
            ("keepalives_interval", "5"),
            ("keepalives_count", "3"),
            ("tcp_user_timeout", "15000"),
            ("dbname", url),
            ("client_encoding", "UTF8"),
        ]
        let keys = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            for key in keys { free(key) }
            for value in values { free(value) }
        }
        let keyPointers: [UnsafePointer<CChar>?] = keys.map { $0.map { UnsafePointer($0) } } + [nil]
        let valuePointers: [UnsafePointer<CChar>?] = values.map { $0.map { UnsafePointer($0) } } + [nil]
        return keyPointers.withUnsafeBufferPointer { k in
            valuePointers.withUnsafeBufferPointer { v in
                body(k.baseAddress, v.baseAddress)
            }
        }
    }
}
