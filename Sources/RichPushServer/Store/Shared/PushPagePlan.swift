import Foundation

/// How one page of pushes is read from `push_index`, the same in both stores: the keyset query's
/// bounds and order (each store writes them in its own SQL), and how the `limit` + 1 rows fetched
/// become the page's push ids and cursors.
///
/// In time order a cursor and the range bound on the same side are one bound: only the tighter is
/// kept, so the index seek starts at it (never scans from the range's edge down to the cursor).
struct PushPagePlan {
    /// A bound on when a push started.
    enum Bound: Equatable {
        /// The range's own bound, ms since 1970: `started_ms >= ms` (lower) or `< ms` (upper).
        case range(Int)
        /// Past a cursor's row: `(started_ms, push_id) > (ms, id)` (lower) or `<` (upper).
        case cursor(startedMs: Int, pushID: String)
    }

    /// Rows to fetch: one more than the page, to know whether another page follows.
    let fetchLimit: Int
    /// Push ids with this prefix only, as the range `[lower, upper)` (U+10FFFF, a noncharacter
    /// push ids may not hold, closes it: `IdentifierRule`).
    let prefixRange: (lower: String, upper: String)?
    /// In push-id order: only ids after this one (`push_id > ?`).
    let idAfter: String?
    /// In push-id order: only ids before this one (`push_id < ?`).
    let idBefore: String?
    /// In time order: the lower bound, if any.
    let lower: Bound?
    /// In time order: the upper bound, if any.
    let upper: Bound?
    /// The `ORDER BY` list: newest first, or push-id order; reversed when reading back.
    let order: String

    private let limit: Int
    private let byID: Bool
    private let forward: Bool
    private let firstPage: Bool

    /// Plans a query.
    /// - Parameter query: the page asked for.
    init(_ query: PushQuery) {
        limit = query.limit
        fetchLimit = query.limit + 1
        byID = query.ordersByID
        prefixRange = query.prefix.map { ($0, $0 + "\u{10FFFF}") }
        var idAfter: String?, idBefore: String?
        var lower = query.startedFromMs.map(Bound.range)
        var upper = query.startedBeforeMs.map(Bound.range)
        var forward = true
        var firstPage = false
        switch query.position {
        case .first:
            firstPage = true
        case .after(let cursor):
            if byID {
                idAfter = cursor.pushID
            } else {
                let ms = cursor.startedMs ?? Int.max
                if query.startedBeforeMs.map({ $0 > ms }) ?? true { upper = .cursor(startedMs: ms, pushID: cursor.pushID) }
            }
        case .before(let cursor):
            forward = false
            if byID {
                idBefore = cursor.pushID
            } else {
                let ms = cursor.startedMs ?? Int.max
                if query.startedFromMs.map({ $0 <= ms }) ?? true { lower = .cursor(startedMs: ms, pushID: cursor.pushID) }
            }
        }
        self.idAfter = idAfter
        self.idBefore = idBefore
        self.lower = lower
        self.upper = upper
        self.forward = forward
        self.firstPage = firstPage
        if byID {
            order = forward ? "push_id ASC" : "push_id DESC"
        } else {
            order = forward ? "started_ms DESC, push_id DESC" : "started_ms ASC, push_id ASC"
        }
    }

    /// The page from the rows the query returned (in `order`, at most `fetchLimit`).
    ///
    /// - Parameter rows: `(push id, started ms)` as fetched.
    /// - Returns: the page's push ids in display order, and the cursors of the pages after and
    ///   before it (`nil` where there is none).
    func page(_ rows: [(id: String, started: Int)]) -> (ids: [String], next: PushCursor?, previous: PushCursor?) {
        var rows = rows
        let more = rows.count > limit
        if more { rows.removeLast() }
        if !forward { rows.reverse() }
        func cursor(_ row: (id: String, started: Int)) -> PushCursor { PushCursor(startedMs: byID ? nil : row.started, pushID: row.id) }
        let next: PushCursor?
        let previous: PushCursor?
        if forward {
            next = more ? rows.last.map(cursor) : nil
            previous = firstPage ? nil : rows.first.map(cursor)
        } else {
            next = rows.last.map(cursor)
            previous = more ? rows.first.map(cursor) : nil
        }
        return (rows.map(\.id), next, previous)
    }
}
