import Foundation
import RichPushServer
import Testing

@testable import RichPushCLI

/// `richpush stats`' tables: columns line up in a terminal whatever script the push ids use.
@Suite struct StatsTableTests {
    func push(_ id: String, sent: Int? = 1_200, delivered: Int = 3, receipts: Int = 3) -> PushStatistics {
        PushStatistics(
            pushID: id, sent: sent, accepted: sent, delivered: delivered, opened: 1, outcomes: ["media_attached": receipts], reasons: [:],
            mediaBytes: 100, elapsedMs: .init(count: receipts, p50: 420, p95: 900), firstSeen: "2026-04-01T03:27:32Z",
            lastSeen: "2026-04-01T03:27:32Z", sources: ["apns"])
    }

    @Test(
        "display width: wide and fullwidth 2, combining 0, the rest 1",
        arguments: [
            ("campaign-1", 10), ("夏のセール", 10), ("세일", 4), ("ＡＢＣ", 6), ("e\u{301}te\u{301}", 3), ("🎉x", 3), ("a\u{200D}b", 2), ("ｶﾀｶﾅ", 4),
        ])
    func width(_ text: String, _ columns: Int) {
        #expect(DisplayWidth.of(text) == columns)
    }

    /// Each column starts at the same terminal column on every line: measured by display width
    /// up to the column's first character, with CJK, Hangul, fullwidth and combining push ids.
    @Test func columnsLineUpWithCJKAndCombiningPushIDs() throws {
        let ids = ["2018001", "夏のセール2026", "세일-한정", "ＦＵＬＬ", "cafe\u{301}-promo"]
        let text = StatsTable.list(ids.map { push($0) })
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == ids.count + 1)
        // Where "source" starts in the header, "APNs" starts on every row.
        func column(of needle: String, in line: String) -> Int? {
            guard let range = line.range(of: needle) else { return nil }
            return DisplayWidth.of(String(line[..<range.lowerBound]))
        }
        let sourceColumn = try #require(column(of: "source", in: lines[0]))
        let sentColumnEnd = try #require(column(of: "sent", in: lines[0])) + 4
        for (id, line) in zip(ids, lines.dropFirst()) {
            #expect(line.hasPrefix(id))
            #expect(column(of: "APNs", in: line) == sourceColumn, "\(line)")
            // "sent" is right-aligned: its figure ends where the header's word ends.
            #expect(column(of: "1,200", in: line).map { $0 + 5 } == sentColumnEnd, "\(line)")
        }
    }

    @Test func oneReceiptIsSingular() {
        #expect(StatsTable.detail(push("p", receipts: 1)).contains("over 1 receipt\n"))
        #expect(StatsTable.detail(push("p", receipts: 2)).contains("over 2 receipts\n"))
    }

    @Test func theUsageLineListsLimit() {
        #expect(StatsCommand.spec.usage.contains("[--limit N]"))
        #expect(StatsCommand.spec.helpText.contains("--limit N"))
    }
}
