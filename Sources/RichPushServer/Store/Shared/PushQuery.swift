import Foundation

/// Which pushes to list: a page of at most `limit`, optionally only push ids starting with
/// `prefix` and only pushes that started in a time range, after or before a cursor.
///
/// Order: newest first (by when the push started: its first send or first receipt, then push id)
/// — a key that never changes once set, so pages stay stable while receipts arrive. With a
/// `prefix`, push-id order (the prefix is a range of the push-id index). Every variant is an index
/// range scan of `limit` rows, whatever the number of pushes.
public struct PushQuery: Sendable, Equatable {
    /// The most pushes one page may hold: 1,000.
    public static let maximumLimit = 1_000

    /// Where the page starts.
    public enum Position: Sendable, Equatable {
        /// The first page.
        case first
        /// The page after this row (older, or later in push-id order).
        case after(PushCursor)
        /// The page before this row (newer, or earlier in push-id order).
        case before(PushCursor)
    }

    /// Pushes per page, 1…1,000 (clamped).
    public var limit: Int
    /// Only push ids starting with this text (case-sensitive), if any.
    public var prefix: String?
    /// Only pushes that started at or after this time, ms since 1970.
    public var startedFromMs: Int?
    /// Only pushes that started before this time, ms since 1970.
    public var startedBeforeMs: Int?
    /// Where the page starts.
    public var position: Position

    /// Makes a query.
    ///
    /// - Parameters:
    ///   - limit: pushes per page (clamped to 1…1,000).
    ///   - prefix: a push-id prefix, or `nil`.
    ///   - startedFromMs: inclusive lower bound on the start time, or `nil`.
    ///   - startedBeforeMs: exclusive upper bound on the start time, or `nil`.
    ///   - position: the page.
    public init(limit: Int = 50, prefix: String? = nil, startedFromMs: Int? = nil, startedBeforeMs: Int? = nil, position: Position = .first) {
        self.limit = max(1, min(limit, Self.maximumLimit))
        self.prefix = prefix.flatMap { $0.isEmpty ? nil : $0 }
        self.startedFromMs = startedFromMs
        self.startedBeforeMs = startedBeforeMs
        self.position = position
    }

    /// Whether the list is in push-id order (a prefix search) rather than newest first.
    public var ordersByID: Bool { prefix != nil }
}
