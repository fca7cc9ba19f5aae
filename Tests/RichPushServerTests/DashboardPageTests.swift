import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// How many pushes the dashboard says there are, and the p95 colour (long push ids and their
/// links are checked against both stores in `StoreTests`).
@Suite("dashboard page")
struct DashboardPageTests {
    @Test("the header counts every push the store knows")
    func pushCountWhenAllShown() {
        let snapshot = DashboardSnapshot(
            totalReceipts: 0, delivered: 0, opened: 0, mediaAttached: 0, withOutcome: 0, sent: 0, accepted: 0, bucketSeconds: 60,
            timeline: [], reasons: [], timing: [], p50Ms: nil, p95Ms: nil,
            pushes: (0..<3).map {
                PushStatistics(
                    pushID: "p\($0)", sent: nil, accepted: nil, delivered: 0, opened: 0, outcomes: [:], reasons: [:], mediaBytes: 0,
                    elapsedMs: .init(count: 0, p50: nil, p95: nil), firstSeen: nil, lastSeen: nil)
            }, totalPushes: 3)
        #expect(DashboardPage.pushCount(snapshot) == "3 pushes")
        var one = snapshot
        one.totalPushes = 1
        one.pushes = Array(snapshot.pushes.prefix(1))
        #expect(DashboardPage.pushCount(one) == "1 push")
        var many = snapshot
        many.totalPushes = 1_000_000
        #expect(DashboardPage.pushCount(many) == "1,000,000 pushes")
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
