import Foundation
import Testing

@testable import RichPushServer

/// The SQL-independent part of the push list and the dashboard's chart that both stores share:
/// which bounds a page's index seek starts from, how the fetched rows become a page and its
/// cursors, and how stored timeline rows become bars.
@Suite("push page plan and timeline bars (shared by both stores)")
struct PushPagePlanTests {
    static let base = 1_700_000_000_000

    @Test("a cursor tighter than the range on its side replaces the range bound; a looser one leaves it")
    func tighterBound() {
        let from = Self.base, before = Self.base + 60_000
        // Next page (older): the cursor inside the range is the upper bound.
        let inside = PushPagePlan(
            PushQuery(
                limit: 10, startedFromMs: from, startedBeforeMs: before, position: .after(PushCursor(startedMs: from + 30_000, pushID: "p"))))
        #expect(inside.lower == .range(from))
        #expect(inside.upper == .cursor(startedMs: from + 30_000, pushID: "p"))
        #expect(inside.order == "started_ms DESC, push_id DESC")
        #expect(inside.fetchLimit == 11)
        // A cursor at or past the range's end adds nothing: the range is the tighter bound.
        let outside = PushPagePlan(
            PushQuery(
                limit: 10, startedFromMs: from, startedBeforeMs: before, position: .after(PushCursor(startedMs: before, pushID: "p"))))
        #expect(outside.upper == .range(before))
        // Previous page (newer): the cursor is the lower bound, read oldest first.
        let previous = PushPagePlan(
            PushQuery(
                limit: 10, startedFromMs: from, position: .before(PushCursor(startedMs: from, pushID: "p"))))
        #expect(previous.lower == .cursor(startedMs: from, pushID: "p"))
        #expect(previous.upper == nil)
        #expect(previous.order == "started_ms ASC, push_id ASC")
        let below = PushPagePlan(
            PushQuery(
                limit: 10, startedFromMs: from, position: .before(PushCursor(startedMs: from - 1, pushID: "p"))))
        #expect(below.lower == .range(from))
    }

    @Test("a prefix search pages in push-id order between the prefix and prefix + U+10FFFF")
    func prefixOrder() {
        let after = PushPagePlan(PushQuery(limit: 5, prefix: "camp", position: .after(PushCursor(startedMs: nil, pushID: "camp-3"))))
        #expect(after.prefixRange?.lower == "camp")
        #expect(after.prefixRange?.upper == "camp\u{10FFFF}")
        #expect(after.idAfter == "camp-3")
        #expect(after.idBefore == nil)
        #expect(after.lower == nil && after.upper == nil)
        #expect(after.order == "push_id ASC")
        let before = PushPagePlan(PushQuery(limit: 2, prefix: "camp", position: .before(PushCursor(startedMs: nil, pushID: "camp-3"))))
        #expect(before.idBefore == "camp-3")
        #expect(before.order == "push_id DESC")
        // Rows come back in reverse; the page shows them in push-id order, with both cursors.
        let page = before.page([("camp-2", 0), ("camp-1", 0), ("camp-0", 0)].map { (id: $0.0, started: $0.1) })
        #expect(page.ids == ["camp-1", "camp-2"])
        #expect(page.previous == PushCursor(startedMs: nil, pushID: "camp-1"))
        #expect(page.next == PushCursor(startedMs: nil, pushID: "camp-2"))
    }

    @Test("the extra row fetched tells whether another page follows; the first page has no previous")
    func cursors() {
        let plan = PushPagePlan(PushQuery(limit: 2))
        let rows = [(id: "c", started: 3), (id: "b", started: 2), (id: "a", started: 1)]
        let full = plan.page(rows)
        #expect(full.ids == ["c", "b"])
        #expect(full.next == PushCursor(startedMs: 2, pushID: "b"))
        #expect(full.previous == nil)
        let last = plan.page(Array(rows.prefix(2)))
        #expect(last.ids == ["c", "b"])
        #expect(last.next == nil)
        let later = PushPagePlan(PushQuery(limit: 2, position: .after(PushCursor(startedMs: 4, pushID: "d")))).page(Array(rows.prefix(2)))
        #expect(later.previous == PushCursor(startedMs: 3, pushID: "c"))
        #expect(later.next == nil)
    }

    @Test("timeline bars: gaps are zeros, rows summed into their bar, rows outside the plan left out")
    func bars() {
        let plan = TimelinePlan(bucketSeconds: 120, sourceWidthMs: 60_000, originMs: Self.base, count: 3)
        let bars = plan.bars([
            (bucketMs: Self.base - 60_000, delivered: 100, opened: 100),
            (bucketMs: Self.base, delivered: 1, opened: 0),
            (bucketMs: Self.base + 60_000, delivered: 2, opened: 1),
            (bucketMs: Self.base + 240_000, delivered: 5, opened: 3),
            (bucketMs: Self.base + 360_000, delivered: 100, opened: 100),
        ])
        #expect(bars.map(\.startMs) == [Self.base, Self.base + 120_000, Self.base + 240_000])
        #expect(bars.map(\.delivered) == [3, 0, 5])
        #expect(bars.map(\.opened) == [1, 0, 3])
    }
}
