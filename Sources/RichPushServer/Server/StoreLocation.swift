import Foundation
import RichPushCore

/// Where `--db` points: a SQLite file (default `./richpush.sqlite`) or, later, a PostgreSQL URL.
public enum StoreLocation: Sendable, Equatable {
    /// A SQLite database file.
    case sqlite(path: String)
    /// A `postgres://` or `postgresql://` URL (not built yet).
    case postgres(url: String)

    /// The default, `./richpush.sqlite`.
    public static let defaultPath = "richpush.sqlite"

    /// Parses a `--db` value.
    ///
    /// - Parameter value: a path, a `file:` URL, or a `postgres://` URL; `nil` = default.
    /// - Returns: the location.
    public static func parse(_ value: String?) -> StoreLocation {
        guard let value, !value.isEmpty else { return .sqlite(path: defaultPath) }
        let lower = value.lowercased()
        if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") { return .postgres(url: value) }
        if lower.hasPrefix("file://") { return .sqlite(path: String(value.dropFirst(7))) }
        if lower.hasPrefix("sqlite:") { return .sqlite(path: String(value.dropFirst(7))) }
        return .sqlite(path: value)
    }

    /// Opens the store.
    ///
    /// - Parameter synchronous: SQLite's sync level.
    /// - Returns: the store.
    /// - Throws: `RichPushError` `configuration` for PostgreSQL (not built yet), `store` when
    ///   the file cannot be opened.
    public func open(synchronous: SQLiteStore.Synchronous = .full) throws -> SQLiteStore {
        switch self {
        case .sqlite(let path):
            return try SQLiteStore(path: path, synchronous: synchronous)
        case .postgres:
            throw RichPushError(
                code: .configuration,
                message: "PostgreSQL store not built yet; use a file path (e.g. --db ./richpush.sqlite)"
            )
        }
    }
}
