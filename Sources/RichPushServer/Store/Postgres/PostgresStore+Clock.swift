import Foundation

extension PostgresStore {
    /// Whose clock the store compares leases, `send_at`, the throttle's seconds, hold-offs and
    /// idempotency claims with.
    public enum Clock: Sendable, Equatable {
        /// The database's (`now()`): every instance on the database agrees, whatever its own clock
        /// says (an instance 30 s fast takes over no chunk still in flight). `richpush serve`'s.
        case database
        /// The `nowMs` each call is given (tests that replay times; one clock for every caller).
        case caller
    }

    /// The database's now, ms since 1970, as SQL.
    static let databaseNowMs = "(extract(epoch from now()) * 1000)::bigint"

    /// The SQL for "now" given the parameter `parameter` (`$n`): the given time when it is set
    /// (`Clock.caller`), the database's otherwise.
    ///
    /// - Parameter parameter: the parameter's placeholder.
    /// - Returns: the SQL expression.
    static func now(_ parameter: String) -> String { "COALESCE(\(parameter)::bigint, \(databaseNowMs))" }

    /// The value to bind to a `now(_:)` parameter: `nil` (the database's clock) or `nowMs`.
    ///
    /// - Parameter nowMs: the caller's now, ms since 1970.
    /// - Returns: the parameter's text.
    func clockValue(_ nowMs: Int) -> String? { clock == .database ? nil : String(nowMs) }
}
