import Foundation

/// What the send-time media check did, counted over the `push_media` rows (one per push and
/// original media URL) recorded in a time range: per probe reason and action.
public struct MediaCheckTotals: Sendable, Equatable {
    /// One count: a reason (`nil`: the extension would attach the original) and what was done
    /// (`checked`, `optimized`, `sent_text`, `refused`).
    public struct Row: Sendable, Equatable {
        /// The probe's (or the optimiser's) reason, `nil` when the original was attachable.
        public var reason: String?
        /// What was done.
        public var action: String
        /// Media URLs (push, URL pairs).
        public var count: Int

        /// Makes a row.
        public init(reason: String?, action: String, count: Int) {
            self.reason = reason
            self.action = action
            self.count = count
        }
    }

    /// The counts, in no particular order.
    public var rows: [Row]

    /// Makes totals.
    ///
    /// - Parameter rows: the counts.
    public init(rows: [Row] = []) {
        self.rows = rows
    }

    /// Media URLs the extension would not have attached, caught before sending (optimised,
    /// removed with `send_text`, or the push refused), per reason, most first.
    public var prevented: [(reason: String, count: Int)] {
        var byReason: [String: Int] = [:]
        for row in rows where row.action != "checked" {
            guard let reason = row.reason else { continue }
            byReason[reason, default: 0] += row.count
        }
        return byReason.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { ($0.key, $0.value) }
    }

    /// Media URLs per action (whatever the reason).
    ///
    /// - Parameter action: `checked`, `optimized`, `sent_text` or `refused`.
    /// - Returns: the count.
    public func count(_ action: String) -> Int {
        rows.filter { $0.action == action }.map(\.count).reduce(0, +)
    }

    /// Attachable originals that were still optimised (over the byte or pixel budget).
    public var lightened: Int {
        rows.filter { $0.action == "optimized" && $0.reason == nil }.map(\.count).reduce(0, +)
    }
}
