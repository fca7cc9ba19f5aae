import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Keyset pages, push-id search, date ranges, the dashboard's summaries and the per-push detail,
/// checked against what the receipts and sends say.
/// Run against both stores (SQLite and PostgreSQL); every store call off the cooperative pool.
@Suite("push listing and summaries (SQLite and PostgreSQL)")
struct PushListingStoreTests {
    static let base = 1_700_000_000_000

    private func receipt(
        _ pushID: String, _ event: RichPushReceipt.Event = .delivered, id: String? = nil, at ms: Int, outcome: RichPushOutcome? = nil,
        reason: RichPushReasonCode? = nil,
        elapsed: Int? = nil
    ) -> StoredReceipt {
        StoredReceipt(
            receipt: RichPushReceipt(pushID: pushID, event: event, receiptID: id, outcome: outcome, reason: reason, elapsedMs: elapsed),
            userAgent: nil, receivedAtMs: ms)
    }

    /// Every page, following `next` from the first.
    private func walk(_ store: TestStore, _ query: PushQuery) async throws -> [[String]] {
        var pages: [[String]] = []
        var q = query
        while true {
            let page = try await store.pushes(q)
            pages.append(page.pushes.map(\.pushID))
            guard let next = page.next else { break }
            q.position = .after(next)
            if pages.count > 1_000 { break }
        }
        return pages
    }

    @Test(
        "newest first in pages of 50: every push exactly once, ties broken by id, back and forth, stable while receipts arrive",
        arguments: StoreBackend.allCases)
    func keysetPages(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        // 230 pushes; every third shares its start with the previous one (ties).
        var receipts: [StoredReceipt] = []
        var expected: [(ms: Int, id: String)] = []
        for i in 0..<230 {
            let ms = Self.base + (i / 3) * 1_000
            let id = String(format: "push-%03d", i)
            receipts.append(receipt(id, id: "r", at: ms))
            expected.append((ms, id))
        }
        _ = try await store.insert(receipts.shuffled())
        let order = expected.sorted { ($0.ms, $0.id) > ($1.ms, $1.id) }.map(\.id)
        let pages = try await walk(store, PushQuery(limit: 50))
        #expect(pages.map(\.count) == [50, 50, 50, 50, 30])
        #expect(pages.flatMap { $0 } == order)

        // From the page after push-099, back to the top with `previous`: full pages of the rows
        // just before each one, the top page holding what is left.
        let index = try #require(order.firstIndex(of: "push-099"))
        var page = try await store.pushes(PushQuery(limit: 50, position: .after(PushCursor(startedMs: Self.base + 33_000, pushID: "push-099"))))
        #expect(page.pushes.first?.pushID == order[index + 1])
        var backwards: [[String]] = [page.pushes.map(\.pushID)]
        while let previous = page.previous {
            page = try await store.pushes(PushQuery(limit: 50, position: .before(previous)))
            backwards.insert(page.pushes.map(\.pushID), at: 0)
        }
        #expect(backwards.flatMap { $0 } == Array(order[0..<(index + 51)]))
        #expect(backwards.dropFirst().allSatisfy { $0.count == 50 })
        #expect(backwards.first?.count == (index + 1) % 50)
        #expect(page.previous == nil)

        // Receipts for old pushes and a brand-new push between page loads: the old pages keep
        // their order (the key is when a push started), the new push goes on top.
        let second = try await store.pushes(PushQuery(limit: 50, position: .after(try #require(try await store.pushes(PushQuery(limit: 50)).next))))
        _ = try await store.insert([receipt("push-000", id: "late", at: Self.base + 999_000), receipt("push-999", at: Self.base + 999_000)])
        let secondAgain = try await store.pushes(PushQuery(limit: 50, position: .after(PushCursor(startedMs: Self.base + 60_000, pushID: order[49]))))
        #expect(secondAgain.pushes.map(\.pushID) == second.pushes.map(\.pushID))
        #expect(try await store.pushes(PushQuery(limit: 1)).pushes.map(\.pushID) == ["push-999"])
        #expect(try await store.push("push-000")?.delivered == 2)
        try await store.close()
    }

    @Test("search by push-id prefix pages in id order; a date range keeps the pushes that started in it", arguments: StoreBackend.allCases)
    func prefixAndRange(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        var receipts: [StoredReceipt] = []
        for i in 0..<120 { receipts.append(receipt("camp-\(i)", at: Self.base + i * 60_000)) }
        for i in 0..<30 { receipts.append(receipt("other-\(i)", at: Self.base + i * 60_000)) }
        receipts.append(receipt("キャンペーン-1", at: Self.base))
        _ = try await store.insert(receipts)
        try await store.recordSend(PushSendRecord(pushID: "camp-sent-only", sentAtMs: Self.base + 500 * 60_000, tokens: [.init(deviceToken: "t", status: 200)]))

        let camp1 = try await walk(store, PushQuery(limit: 7, prefix: "camp-1"))
        let expected = (["camp-1"] + (10...19).map { "camp-\($0)" } + (100...119).map { "camp-\($0)" }).sorted()
        #expect(camp1.flatMap { $0 } == expected)
        #expect(camp1.dropLast().allSatisfy { $0.count == 7 })
        #expect(try await store.pushes(PushQuery(prefix: "camp-s")).pushes.map(\.pushID) == ["camp-sent-only"])
        #expect(try await store.pushes(PushQuery(prefix: "キャン")).pushes.map(\.pushID) == ["キャンペーン-1"])
        #expect(try await store.pushes(PushQuery(prefix: "nothing")).pushes.isEmpty)

        // Started in [base + 10 min, base + 20 min): camp-10…19 and other-10…19.
        let range = try await walk(store, PushQuery(limit: 6, startedFromMs: Self.base + 10 * 60_000, startedBeforeMs: Self.base + 20 * 60_000))
        let inRange = range.flatMap { $0 }
        #expect(inRange.count == 20)
        #expect(Set(inRange) == Set((10..<20).flatMap { ["camp-\($0)", "other-\($0)"] }))
        // Both filters together.
        let both = try await store.pushes(
            PushQuery(limit: 100, prefix: "other-1", startedFromMs: Self.base + 12 * 60_000, startedBeforeMs: Self.base + 15 * 60_000))
        #expect(both.pushes.map(\.pushID) == ["other-12", "other-13", "other-14"])
        try await store.close()
    }

    @Test(
        "the dashboard's totals, reasons, timing and timeline equal what the receipts and sends say, whatever order they came in",
        arguments: StoreBackend.allCases)
    func summariesMatchTheData(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        var generator = SystemRandomNumberGenerator()
        var batches: [[StoredReceipt]] = []
        let outcomes: [RichPushOutcome?] = [.mediaAttached, .textOnly, nil]
        let reasons: [RichPushReasonCode?] = [nil, .timeout, .tooLarge, nil]
        for b in 0..<20 {
            var batch: [StoredReceipt] = []
            for i in 0..<60 {
                let push = "p\(Int.random(in: 0..<25, using: &generator))"
                let event: RichPushReceipt.Event = Int.random(in: 0..<4, using: &generator) == 0 ? .opened : .delivered
                // Some receipt ids repeat: duplicates count once.
                let id = "r\(Int.random(in: 0..<400, using: &generator))"
                let outcome = outcomes[Int.random(in: 0..<outcomes.count, using: &generator)]
                let reason = outcome == .textOnly ? reasons[Int.random(in: 0..<reasons.count, using: &generator)] : nil
                let elapsed = event == .delivered ? Int.random(in: 0...40_000, using: &generator) : nil
                batch.append(receipt(push, event, id: id, at: Self.base + b * 37_000 + i * 11, outcome: outcome, reason: reason, elapsed: elapsed))
            }
            batches.append(batch)
        }
        // Sends before, between and after receipts (the first send of p3 comes after its receipts).
        try await store.recordSend(
            PushSendRecord(pushID: "p1", sentAtMs: Self.base - 5_000, tokens: (0..<50).map { .init(deviceToken: "a\($0)", status: $0 < 45 ? 200 : 410) }))
        for (i, batch) in batches.enumerated() {
            _ = try await store.insert(batch)
            if i == 10 {
                try await store.recordSend(
                    PushSendRecord(pushID: "p3", sentAtMs: Self.base + 400_000, tokens: (0..<30).map { .init(deviceToken: "b\($0)", status: 200) }))
            }
        }
        try await store.recordSend(
            PushSendRecord(pushID: "p1", sentAtMs: Self.base + 900_000, tokens: (0..<10).map { .init(deviceToken: "c\($0)", status: 200) }))
        try await store.recordSend(PushSendRecord(pushID: "never-received", sentAtMs: Self.base + 1_000_000, tokens: [.init(deviceToken: "d", status: 200)]))

        // What the data says, from each push's own figures (every page).
        let all = try await walk(store, PushQuery(limit: 7)).flatMap { $0 }
        var pushes: [PushStatistics] = []
        for id in all { pushes.append(try #require(try await store.push(id))) }
        let snapshot = try await store.dashboard(DashboardQuery(maximumBuckets: 60))
        #expect(snapshot.totalPushes == pushes.count)
        #expect(snapshot.delivered == pushes.map(\.delivered).reduce(0, +))
        #expect(snapshot.opened == pushes.map(\.opened).reduce(0, +))
        #expect(snapshot.totalReceipts == snapshot.delivered + snapshot.opened)
        #expect(snapshot.sent == pushes.compactMap(\.sent).reduce(0, +))
        #expect(snapshot.accepted == pushes.compactMap(\.accepted).reduce(0, +))
        #expect(snapshot.accepted == 45 + 30 + 10 + 1)
        #expect(snapshot.deliveredOfSentPushes == pushes.filter { $0.sent != nil }.map(\.delivered).reduce(0, +))
        #expect(snapshot.mediaAttached == pushes.map { $0.outcomes["media_attached"] ?? 0 }.reduce(0, +))
        #expect(snapshot.withOutcome == pushes.map { $0.outcomes.values.reduce(0, +) }.reduce(0, +))
        var reasonTotals: [String: Int] = [:]
        for p in pushes { for (r, n) in p.reasons { reasonTotals[r, default: 0] += n } }
        #expect(snapshot.withReason == reasonTotals.values.reduce(0, +))
        #expect(Dictionary(uniqueKeysWithValues: snapshot.reasons.map { ($0.reason, $0.count) }) == reasonTotals)
        #expect(snapshot.timing.map(\.count).reduce(0, +) == pushes.map(\.elapsedMs.count).reduce(0, +))
        #expect(snapshot.timeline.map(\.delivered).reduce(0, +) == snapshot.delivered)
        #expect(snapshot.timeline.map(\.opened).reduce(0, +) == snapshot.opened)
        #expect(snapshot.timeline.count <= 60)

        // A receipt older than a known push's start (a device's late-flushed queue, a clock step)
        // moves the push's start back, so it lists where it now belongs.
        _ = try await store.insert([receipt("p7", id: "early", at: Self.base - 3_600_000)])
        #expect(try await store.pushes(PushQuery(limit: 5, startedBeforeMs: Self.base - 3_000_000)).pushes.map(\.pushID) == ["p7"])
        #expect(try await store.dashboard(DashboardQuery()).totalPushes == pushes.count)
        try await store.close()
    }

    @Test(
        "the timeline picks its bar from the range: seconds for a minute, minutes for hours, days for months; a range narrows it",
        arguments: StoreBackend.allCases)
    func timeline(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        let day = 86_400_000
        // 40 receipts in one minute, 3 days ago and now-ish; 10 opened.
        var receipts: [StoredReceipt] = []
        for i in 0..<40 { receipts.append(receipt("old", id: "o\(i)", at: Self.base + i * 1_500)) }
        for i in 0..<40 { receipts.append(receipt("new", i < 10 ? .opened : .delivered, id: "n\(i)", at: Self.base + 3 * day + i * 1_500)) }
        _ = try await store.insert(receipts)
        let whole = try await store.dashboard(DashboardQuery(maximumBuckets: 60))
        #expect(whole.bucketSeconds == 7_200)
        #expect(whole.timeline.map(\.delivered).reduce(0, +) == 70)
        #expect(whole.timeline.map(\.opened).reduce(0, +) == 10)
        // Just the last minute: 1 s … 2 s bars, from the per-second counts.
        let recent = try await store.dashboard(DashboardQuery(maximumBuckets: 60, fromMs: Self.base + 3 * day, toMs: Self.base + 3 * day + 60_000))
        #expect(recent.bucketSeconds <= 2)
        #expect(recent.timeline.map(\.delivered).reduce(0, +) == 30)
        #expect(recent.timeline.map(\.opened).reduce(0, +) == 10)
        // The old minute: per-second counts are gone after 48 h, so 1-minute bars.
        let old = try await store.dashboard(DashboardQuery(maximumBuckets: 60, fromMs: Self.base, toMs: Self.base + 60_000))
        #expect(old.bucketSeconds == 60)
        #expect(old.timeline.map(\.delivered).reduce(0, +) == 40)
        // Bar widths and sources.
        #expect(TimelinePlan.plan(fromMs: 0, toMs: 59_000, maximumBuckets: 60, newestMs: 59_000).sourceWidthMs == 1_000)
        #expect(TimelinePlan.plan(fromMs: 0, toMs: 10 * 3_600_000, maximumBuckets: 60, newestMs: 10 * 3_600_000).sourceWidthMs == 60_000)
        let year = TimelinePlan.plan(fromMs: 0, toMs: 365 * day, maximumBuckets: 60, newestMs: 365 * day)
        #expect(year.sourceWidthMs == day)
        #expect(year.count <= 60)
        try await store.close()
    }

    @Test("one push's detail: token outcomes, reasons, timing histogram, title and send times", arguments: StoreBackend.allCases)
    func detail(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        try await store.recordSend(
            PushSendRecord(
                pushID: "d", sentAtMs: Self.base, title: "Winter sale",
                tokens: [
                    .init(deviceToken: "t1", status: 200, outcome: "accepted"), .init(deviceToken: "t2", status: 200, outcome: "accepted"),
                    .init(deviceToken: "t3", status: 410, reason: "Unregistered", outcome: "token_inactive", state: .inactive),
                ]))
        _ = try await store.insert([
            receipt("d", id: "1", at: Self.base + 1_000, outcome: .mediaAttached, elapsed: 300),
            receipt("d", id: "2", at: Self.base + 2_000, outcome: .textOnly, reason: .timeout, elapsed: 25_000),
        ])
        let detail = try #require(try await store.pushDetail("d"))
        #expect(detail.title == "Winter sale")
        #expect(detail.firstSentMs == Self.base)
        #expect(detail.tokenOutcomes.map(\.outcome) == ["accepted", "token_inactive"])
        #expect(detail.tokenOutcomes.map(\.count) == [2, 1])
        #expect(detail.reasons.map(\.reason) == ["timeout"])
        #expect(detail.timing.map(\.count).reduce(0, +) == 2)
        #expect(detail.statistics.displayRate == 1.0)
        #expect(try await store.pushDetail("unknown") == nil)
        try await store.close()
    }

    @Test("a version-2 file gains the summaries on open, filled from what it holds")
    func migrationFillsSummaries() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("v3.sqlite").path
        // Make a current file, then take it back to version 3 (drop the summaries).
        let store = try SQLiteStore(path: path)
        try store.recordSend(PushSendRecord(pushID: "a", sentAtMs: Self.base, tokens: (0..<4).map { .init(deviceToken: "t\($0)", status: 200) }))
        _ = try store.insert((0..<3).map { receipt("a", id: "\($0)", at: Self.base + 1_000 + $0, outcome: .mediaAttached, elapsed: 1_234) })
        _ = try store.insert([
            receipt("b", id: "x", at: Self.base + 5_000, outcome: .textOnly, reason: .timeout, elapsed: 777),
            receipt("b", .opened, id: "x", at: Self.base + 9_000),
        ])
        let before = try store.dashboard(DashboardQuery())
        let listBefore = try store.pushes(PushQuery())
        try store.close()
        let drop =
            "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.executescript('DROP TABLE push_index; DROP TABLE totals; DROP TABLE reason_totals; DROP TABLE elapsed_totals; DROP TABLE timeline; PRAGMA user_version = 3;'); db.commit()"
        let made = try await ChildProcess("python3", ["-c", drop, path]).run(timeout: 30)
        #expect(made.status == 0, "\(made.stderr)")

        let reopened = try SQLiteStore(path: path)
        let after = try reopened.dashboard(DashboardQuery())
        #expect(after == before)
        #expect(after.totalPushes == 2)
        #expect(after.deliveredOfSentPushes == 3)
        #expect(after.p50Ms == 1_230)  // overall timing: 3 significant digits
        #expect(try reopened.pushes(PushQuery()) == listBefore)
        #expect(try reopened.push("a")?.elapsedMs.p50 == 1_234)  // per push: exact
        try reopened.close()
    }

    @Test("a PostgreSQL database at version 3 gains the summaries on start, filled from what it holds")
    func postgresMigrationFillsSummaries() async throws {
        let fixture = try await StoreFixture.make(.postgres)
        let database = try #require(fixture.database)
        let store = try await fixture.open()
        try await store.recordSend(PushSendRecord(pushID: "a", sentAtMs: Self.base, tokens: (0..<4).map { .init(deviceToken: "t\($0)", status: 200) }))
        _ = try await store.insert((0..<3).map { receipt("a", id: "\($0)", at: Self.base + 1_000 + $0, outcome: .mediaAttached, elapsed: 1_234) })
        _ = try await store.insert([
            receipt("b", id: "x", at: Self.base + 5_000, outcome: .textOnly, reason: .timeout, elapsed: 777),
            receipt("b", .opened, id: "x", at: Self.base + 9_000),
        ])
        let before = try await store.dashboard(DashboardQuery())
        let listBefore = try await store.pushes(PushQuery())
        try await store.close()
        _ = try await database.execute(
            "DROP TABLE push_index, totals, reason_totals, elapsed_totals, timeline; UPDATE richpush_meta SET value = '3' WHERE key = 'schema_version'")

        let reopened = try await fixture.open()
        #expect(try await database.execute("SELECT value FROM richpush_meta WHERE key = 'schema_version'") == [String(PostgresSchema.version)])
        let after = try await reopened.dashboard(DashboardQuery())
        #expect(after == before)
        #expect(after.totalPushes == 2)
        #expect(after.deliveredOfSentPushes == 3)
        #expect(after.p50Ms == 1_230)
        #expect(try await reopened.pushes(PushQuery()) == listBefore)
        try await reopened.close()
    }
}
