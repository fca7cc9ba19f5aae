import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// What the dashboard says about long push ids, how many pushes it shows, and the p95 colour.
@Suite("dashboard page")
struct DashboardPageTests {
    @Test("long push ids end in … with the full id as a tooltip and link to their page; the header counts every push")
    func longIDsAndPushCount() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("d.sqlite").path)
        let long = "campaign-2026-black-friday-" + String(repeating: "x", count: 30) + "-END"
        var receipts = (0..<14).map { StoredReceipt(receipt: Receipt(pushID: "p\($0)"), userAgent: nil, receivedAtMs: 1_700_000_000_000 + $0) }
        receipts.append(StoredReceipt(receipt: Receipt(pushID: long), userAgent: nil, receivedAtMs: 1_700_000_100_000))
        _ = try store.insert(receipts)
        // One push only sent (no receipts yet) counts too.
        try store.recordSend(PushSendRecord(pushID: "sent-only", sentAtMs: 1_700_000_050_000, tokens: [.init(deviceToken: "t", status: 200)]))
        let snapshot = try store.dashboard(maximumBuckets: 60)
        #expect(snapshot.pushes.count == 12)
        #expect(snapshot.totalPushes == 16)
        let html = DashboardPage.render(snapshot, generatedAtMs: 1_700_000_200_000)
        #expect(html.contains("<span>16 pushes</span>"))
        // Table: 39 characters and "…", the full id in the title attribute, a link to its page.
        #expect(html.contains("<td class=\"mono\" title=\"\(long)\"><a href=\"/pushes/\(long)\">\(long.prefix(39))…</a></td>"))
        // Funnel: 17 characters and "…", the full id in an SVG <title>.
        #expect(html.contains("<title>\(long)</title>\(long.prefix(17))…</text>"))
        // Short ids are shown whole, without a tooltip.
        #expect(html.contains("<td class=\"mono\"><a href=\"/pushes/p13\">p13</a></td>"))
        try store.close()

        var few = snapshot
        few.pushes = Array(snapshot.pushes.prefix(3))
        few.totalPushes = 3
        #expect(DashboardPage.pushCount(few) == "3 pushes")
        few.totalPushes = 1
        few.pushes = Array(snapshot.pushes.prefix(1))
        #expect(DashboardPage.pushCount(few) == "1 push")
    }

    @Test("the bucket holding p95 is orange also when p50 falls in the same bucket")
    func p95BucketColoured() {
        let edges = DashboardSnapshot.timingEdgesMs
        var buckets = edges.indices.map { i in
            DashboardSnapshot.TimingBucket(lowerMs: edges[i], upperMs: i + 1 < edges.count ? edges[i + 1] : nil, count: 0)
        }
        buckets[2].count = 97  // 250–500 ms: p50 and p95 both here
        buckets[5].count = 1
        /// The tooltips of the orange bars.
        func orangeBars(_ svg: String) -> [String] {
            svg.components(separatedBy: "fill=\"\(SVGChart.Palette.p95)\">").dropFirst().map { String($0.prefix { $0 != "/" }) }
        }
        let svg = SVGChart.timing(buckets, p50: 300, p95: 450)
        #expect(orangeBars(svg) == ["<title>250 ms–500 ms: 97<"])
        #expect(svg.contains("orange: the bucket holding p95"))
        // Apart: only the p95 bucket is orange.
        #expect(orangeBars(SVGChart.timing(buckets, p50: 300, p95: 2_500)) == ["<title>2.0 s–5.0 s: 1<"])
    }
}
