import Foundation
import RichPushCore

/// A failure reported by libpq or the server, before the store turns it into a `RichPushError`.
///
/// `connectionLost` tells the store that the connection cannot be used again (the server went
/// away, shut down, or is a read-only standby after a failover) and must be made anew.
struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The server's SQLSTATE (`23505`, `40P01`, `57P01`…), `nil` when libpq itself failed.
    let sqlState: String?
    /// libpq's or the server's message (first line).
    let message: String
    /// Whether the connection is unusable: SQLSTATE classes 08 (connection exception) and 57
    /// (operator intervention: shutdown, crash, not accepting connections), 25006 (read-only:
    /// a standby after failover), or libpq saw the connection drop.
    let connectionLost: Bool

    var description: String { sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message }

    /// Whether running the same transaction again may succeed at once: a deadlock (`40P01`) or
    /// a serialization failure (`40001`) rolled it back.
    var isRetryable: Bool { sqlState == "40P01" || sqlState == "40001" }

    init(sqlState: String?, message: String, connectionLost: Bool) {
        self.sqlState = sqlState
        self.message = message
        self.connectionLost =
            connectionLost || sqlState.map { $0.hasPrefix("08") || $0.hasPrefix("57") || $0 == "25006" } ?? false
    }
}
