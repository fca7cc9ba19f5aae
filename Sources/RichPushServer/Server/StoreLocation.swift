import Foundation
import RichPushCore

/// Where `--db` points: a SQLite file (default `./richpush.sqlite`) or a PostgreSQL database.
public enum StoreLocation: Sendable, Equatable {
    /// A SQLite database file.
    case sqlite(path: String)
    /// A `postgres://` or `postgresql://` URL, handed to libpq as is.
    case postgres(url: String)

    /// The default, `./richpush.sqlite`.
    public static let defaultPath = "richpush.sqlite"

    /// The environment variable read when `--db` is not given.
    public static let environmentVariable = "RICHPUSH_DB_URL"

    /// Parses a `--db` value.
    ///
    /// - Parameter value: a path, a `file:` or `sqlite:` URL, or a `postgres://` /
    ///   `postgresql://` URL; `nil` or empty = the default file.
    /// - Returns: the location.
    public static func parse(_ value: String?) -> StoreLocation {
        guard let value, !value.isEmpty else { return .sqlite(path: defaultPath) }
        if PostgresConnectionInfo.isPostgresURL(value) { return .postgres(url: value) }
        let lower = value.lowercased()
        if lower.hasPrefix("file://") { return .sqlite(path: String(value.dropFirst(7))) }
        if lower.hasPrefix("sqlite:") { return .sqlite(path: String(value.dropFirst(7))) }
        return .sqlite(path: value)
    }

    /// `--db` if given, else `RICHPUSH_DB_URL`, else the default file.
    ///
    /// - Parameters:
    ///   - option: the `--db` value.
    ///   - environment: the process environment.
    /// - Returns: the location.
    public static func resolve(option: String?, environment: [String: String]) -> StoreLocation {
        if let option, !option.isEmpty { return parse(option) }
        return parse(environment[environmentVariable])
    }

    /// What banners and logs show: the file path, or the URL without password or query values.
    public var displayName: String {
        switch self {
        case .sqlite(let path): return path
        case .postgres(let url): return (try? PostgresConnectionInfo(url: url).redacted) ?? PostgresConnectionInfo.redact(url)
        }
    }

    /// Opens the store.
    ///
    /// - Parameters:
    ///   - synchronous: SQLite's sync level (ignored for PostgreSQL, which commits with
    ///     `synchronous_commit=on`).
    ///   - connections: PostgreSQL connections per store (writer included).
    ///   - applicationName: PostgreSQL's `application_name` for these connections.
    /// - Returns: the store.
    /// - Throws: `RichPushError` `store` when the file cannot be opened or is not a RichPush
    ///   database; for PostgreSQL `configuration` (malformed URL), `storeUnavailable` (cannot
    ///   connect; the message names host and port) or `store` (foreign or newer schema).
    public func open(
        synchronous: SQLiteStore.Synchronous = .full, connections: Int = PostgresStore.defaultConnections,
        applicationName: String = "richpush serve", names: StoreSettingNames = .descriptive
    ) throws -> any ReceiptStore & StatisticsStore {
        switch self {
        case .sqlite(let path):
            return try SQLiteStore(path: path, synchronous: synchronous, names: names)
        case .postgres(let url):
            return try PostgresStore(url: url, connections: connections, applicationName: applicationName, names: names)
        }
    }
}
