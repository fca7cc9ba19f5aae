import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The store contract, run against both stores (SQLite and PostgreSQL): the same inputs give
/// the same figures. Backend-specific behaviour (SQLite files, PostgreSQL connections) has
/// suites of its own.
@Suite("store (SQLite and PostgreSQL)")
struct StoreTests {
    private func stored(_ r: RichPushReceipt, at ms: Int = 1_700_000_000_000, userAgent: String? = "RichPushTests/1") -> StoredReceipt {
        StoredReceipt(receipt: r, userAgent: userAgent, receivedAtMs: ms)
    }

    @Test("the same receipt_id is stored once per push and event; receipts without one are each counted", arguments: StoreBackend.allCases)
    func dedup(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        let results = try await store.insert([
            stored(RichPushReceipt(pushID: "p", receiptID: "a")),
            stored(RichPushReceipt(pushID: "p", receiptID: "a")),
            stored(RichPushReceipt(pushID: "p", event: .opened, receiptID: "a")),
            stored(RichPushReceipt(pushID: "q", receiptID: "a")),
            stored(RichPushReceipt(pushID: "p")),
            stored(RichPushReceipt(pushID: "p")),
        ])
        #expect(results == [true, false, true, true, true, true])
        #expect(try await store.insert([stored(RichPushReceipt(pushID: "p", receiptID: "a"))]) == [false])
        #expect(try await store.insert([]) == [])
        let p = try #require(try await store.push("p"))
        #expect(p.delivered == 3)
        #expect(p.opened == 1)
        try await store.close()
    }

    @Test("of equal receipts in one batch the first arrival is stored and counted, with its own fields", arguments: StoreBackend.allCases)
    func firstArrivalWins(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        let results = try await store.insert([
            stored(RichPushReceipt(pushID: "p", receiptID: "z", outcome: .textOnly, reason: .timeout, elapsedMs: 900), at: 1_700_000_000_500),
            stored(RichPushReceipt(pushID: "p", receiptID: "z", outcome: .mediaAttached, elapsedMs: 100, mediaBytes: 5), at: 1_700_000_000_100),
            stored(RichPushReceipt(pushID: "p", receiptID: "y", outcome: .mediaAttached, elapsedMs: 100, mediaBytes: 7), at: 1_700_000_000_200),
            stored(RichPushReceipt(pushID: "p", receiptID: "z", outcome: .original), at: 1_700_000_000_300),
        ])
        #expect(results == [true, false, true, false])
        let p = try #require(try await store.push("p"))
        #expect(p.delivered == 2)
        #expect(p.outcomes == ["text_only": 1, "media_attached": 1])
        #expect(p.reasons == ["timeout": 1])
        #expect(p.mediaBytes == 7)
        #expect(p.elapsedMs == .init(count: 2, p50: 100, p95: 900))
        #expect(p.firstSeen == "2023-11-14T22:13:20.200Z")
        #expect(p.lastSeen == "2023-11-14T22:13:20.500Z")
        try await store.close()
    }

    @Test("per-push figures are exact: outcomes, reasons, media bytes, p50/p95, first and last seen", arguments: StoreBackend.allCases)
    func figures(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        var batch: [StoredReceipt] = []
        // 20 delivered: elapsed 100, 200, …, 2000 ms; 15 media_attached (1,000 B each), 5 timeouts.
        for i in 1...20 {
            let attached = i <= 15
            batch.append(
                stored(
                    RichPushReceipt(
                        pushID: "2018001", receiptID: "r\(i)", outcome: attached ? .mediaAttached : .textOnly,
                        reason: attached ? nil : .timeout, elapsedMs: i * 100, mediaBytes: attached ? 1_000 : nil,
                        mediaType: attached ? "public.jpeg" : nil
                    ), at: 1_700_000_000_000 + i * 1_000))
        }
        for i in 1...4 { batch.append(stored(RichPushReceipt(pushID: "2018001", event: .opened, receiptID: "r\(i)"), at: 1_700_000_100_000)) }
        _ = try await store.insert(batch)
        let p = try #require(try await store.push("2018001"))
        #expect(p.delivered == 20)
        #expect(p.opened == 4)
        #expect(p.outcomes == ["media_attached": 15, "text_only": 5])
        #expect(p.reasons == ["timeout": 5])
        #expect(p.mediaBytes == 15_000)
        #expect(p.elapsedMs == .init(count: 20, p50: 1_000, p95: 1_900))
        #expect(p.firstSeen == "2023-11-14T22:13:21.000Z")
        #expect(p.lastSeen == "2023-11-14T22:15:00.000Z")
        #expect(p.sent == nil && p.accepted == nil && p.displayRate == nil)
        #expect(try await store.push("unknown") == nil)

        let dash = try await store.dashboard(maximumBuckets: 60)
        #expect(dash.totalReceipts == 24)
        #expect(dash.timeline.map(\.delivered).reduce(0, +) == 20)
        #expect(dash.timeline.map(\.opened).reduce(0, +) == 4)
        #expect(dash.bucketSeconds == 2)
        #expect(dash.timeline.count == 51)
        #expect(dash.timing.map(\.count).reduce(0, +) == 20)
        #expect(dash.reasons.first?.reason == "timeout")
        #expect(dash.p50Ms == 1_000)
        #expect(dash.p95Ms == 1_900)
        try await store.close()
    }

    @Test("recorded sends give sent, accepted and display rate = delivered / accepted; a reopened store keeps everything", arguments: StoreBackend.allCases)
    func sends(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        try await store.recordSend(
            PushSendRecord(
                pushID: "p", sentAtMs: 1_700_000_000_000,
                tokens: (0..<10).map { .init(deviceToken: "tok\($0)", status: $0 < 8 ? 200 : 410, reason: $0 < 8 ? nil : "Unregistered") }
            ))
        #expect(try await store.push("p")?.sent == 10)
        #expect(try await store.push("p")?.delivered == 0)
        _ = try await store.insert((0..<6).map { stored(RichPushReceipt(pushID: "p", receiptID: "d\($0)")) })
        let p = try #require(try await store.push("p"))
        #expect(p.accepted == 8)
        #expect(p.displayRate == 0.75)
        // A second send of the same push adds to its counts and keeps the title.
        try await store.recordSend(PushSendRecord(pushID: "p", sentAtMs: 1_700_000_050_000, title: "Sale", tokens: [.init(deviceToken: "tok10", status: 200)]))
        #expect(try await store.push("p")?.sent == 11)
        #expect(try await store.push("p")?.accepted == 9)
        try await store.close()
        // Reopening keeps everything.
        let again = try await fixture.open()
        #expect(try await again.push("p")?.delivered == 6)
        #expect(try await again.pushes(limit: 10).map(\.pushID) == ["p"])
        try await again.close()
    }

    @Test("device-token states: 410 and bad tokens are kept with reason and since when; a later 200 clears them", arguments: StoreBackend.allCases)
    func tokenStates(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        try await store.recordSend(
            PushSendRecord(
                pushID: "new", sentAtMs: 1_700_000_100_000,
                tokens: [
                    .init(
                        deviceToken: "t1", status: 410, reason: "Unregistered", outcome: "token_inactive", state: .inactive, inactiveSinceMs: 1_700_000_000_000),
                    .init(deviceToken: "t2", status: nil, reason: "BadDeviceToken", outcome: "token_bad", state: .bad),
                    .init(deviceToken: "t3", status: 200, outcome: "accepted"),
                ]))
        let new = try #require(try await store.push("new"))
        #expect(new.sent == 2)  // t2 was never sent (malformed): kept per token, not counted
        #expect(new.accepted == 1)
        #expect(try await store.deviceTokenState("t1")?.state == .inactive)
        #expect(try await store.deviceTokenState("t1")?.reason == "Unregistered")
        #expect(try await store.deviceTokenState("t1")?.sinceMs == 1_700_000_000_000)
        #expect(try await store.deviceTokenState("t2")?.state == .bad)
        #expect(try await store.deviceTokenState("t2")?.sinceMs == nil)
        #expect(try await store.deviceTokenState("t3") == nil)
        // A later 200 for the token clears its state.
        try await store.recordSend(
            PushSendRecord(pushID: "again", sentAtMs: 1_700_000_200_000, tokens: [.init(deviceToken: "t1", status: 200, outcome: "accepted")]))
        #expect(try await store.deviceTokenState("t1") == nil)
        // A token listed twice in one send: its last result counts (as when applied in order).
        try await store.recordSend(
            PushSendRecord(
                pushID: "twice", sentAtMs: 1_700_000_300_000,
                tokens: [
                    .init(deviceToken: "t4", status: 200, outcome: "accepted"),
                    .init(
                        deviceToken: "t4", status: 410, reason: "Unregistered", outcome: "token_inactive", state: .inactive, inactiveSinceMs: 1_700_000_250_000),
                    .init(deviceToken: "t5", status: 410, reason: "Unregistered", outcome: "token_inactive", state: .inactive),
                    .init(deviceToken: "t5", status: 200, outcome: "accepted"),
                    .init(deviceToken: "t5", status: 500, reason: "InternalServerError", outcome: "retry_exhausted"),
                ]))
        #expect(try await store.deviceTokenState("t4")?.state == .inactive)
        #expect(try await store.deviceTokenState("t5") == nil)
        let twice = try #require(try await store.push("twice"))
        #expect(twice.sent == 5)
        #expect(twice.accepted == 2)
        try await store.close()
    }

    @Test("the dashboard's display rate counts delivered receipts of sent pushes only", arguments: StoreBackend.allCases)
    func displayRateOfSentPushes(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        try await store.recordSend(
            PushSendRecord(pushID: "sent", sentAtMs: 1_700_000_000_000, tokens: (0..<4).map { .init(deviceToken: "t\($0)", status: 200) }))
        let receipts =
            (0..<3).map { StoredReceipt(receipt: RichPushReceipt(pushID: "sent", receiptID: "r\($0)"), userAgent: nil, receivedAtMs: 1_700_000_001_000) }
            + (0..<5).map { StoredReceipt(receipt: RichPushReceipt(pushID: "elsewhere", receiptID: "e\($0)"), userAgent: nil, receivedAtMs: 1_700_000_001_000) }
        _ = try await store.insert(receipts)
        let snapshot = try await store.dashboard(maximumBuckets: 60)
        #expect(snapshot.delivered == 8)
        #expect(snapshot.accepted == 4)
        #expect(snapshot.deliveredOfSentPushes == 3)
        let html = DashboardPage.render(snapshot, generatedAtMs: 1_700_000_002_000)
        #expect(html.contains("75.0 %"))
        #expect(!html.contains("200.0 %"))
        try await store.close()
    }

    @Test(
        "the dashboard's snapshot holds the 12 newest of N pushes, long push ids cut with a tooltip and linked to their page", arguments: StoreBackend.allCases)
    func dashboardPushCount(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        let long = "campaign-2026-black-friday-" + String(repeating: "x", count: 30) + "-END"
        var receipts = (0..<14).map { StoredReceipt(receipt: RichPushReceipt(pushID: "p\($0)"), userAgent: nil, receivedAtMs: 1_700_000_000_000 + $0) }
        receipts.append(StoredReceipt(receipt: RichPushReceipt(pushID: long), userAgent: nil, receivedAtMs: 1_700_000_100_000))
        _ = try await store.insert(receipts)
        // One push only sent (no receipts yet) counts too.
        try await store.recordSend(PushSendRecord(pushID: "sent-only", sentAtMs: 1_700_000_050_000, tokens: [.init(deviceToken: "t", status: 200)]))
        let snapshot = try await store.dashboard(maximumBuckets: 60)
        #expect(snapshot.pushes.count == 12)
        #expect(snapshot.totalPushes == 16)
        #expect(snapshot.pushes.first?.pushID == long)
        #expect(snapshot.pushes.dropFirst().first?.pushID == "sent-only")
        let html = DashboardPage.render(snapshot, generatedAtMs: 1_700_000_200_000)
        #expect(html.contains("<span>16 pushes</span>"))
        #expect(html.contains("<td class=\"mono\" title=\"\(long)\"><a href=\"/pushes/\(long)\">\(long.prefix(39))…</a></td>"))
        #expect(html.contains("<td class=\"mono\"><a href=\"/pushes/p13\">p13</a></td>"))
        #expect(html.contains("<title>\(long)</title>\(long.prefix(17))…</text>"))
        #expect(try await store.pushes(limit: 1_000).count == 16)
        #expect(try await store.pushes(limit: 3).map(\.pushID) == [long, "sent-only", "p13"])
        try await store.close()
    }

    @Test("text with quotes, backslashes, braces, commas, NULL, emoji and Japanese comes back exactly", arguments: StoreBackend.allCases)
    func textRoundTrip(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        let awkward = [#"a"b"#, #"back\slash"#, "{braces},comma", "NULL", "", " spaced ", "お知らせ🎉", #"\""#, "'quote'"]
        var batch: [StoredReceipt] = []
        for (i, text) in awkward.enumerated() {
            let id = "push-\(text)"
            batch.append(
                stored(
                    RichPushReceipt(
                        pushID: id, receiptID: text, outcome: RichPushOutcome(rawValue: "o-\(text)"), reason: RichPushReasonCode(rawValue: "r-\(text)")),
                    at: 1_700_000_000_000 + i, userAgent: text))
            batch.append(stored(RichPushReceipt(pushID: id, receiptID: text), at: 1_700_000_000_000 + i))
        }
        let results = try await store.insert(batch)
        #expect(results == awkward.flatMap { _ in [true, false] })
        for text in awkward {
            let p = try #require(try await store.push("push-\(text)"), "\(text)")
            #expect(p.pushID == "push-\(text)")
            #expect(p.delivered == 1)
            #expect(p.outcomes == ["o-\(text)": 1])
            #expect(p.reasons == ["r-\(text)": 1])
        }
        try await store.recordSend(
            PushSendRecord(
                pushID: "push-NULL", sentAtMs: 1_700_000_000_100, title: #"Title "with" \ and {x}"#,
                tokens: [.init(deviceToken: #"to"k"#, status: 200, apnsID: "NULL")]))
        #expect(try await store.push("push-NULL")?.accepted == 1)
        try await store.close()
    }

    @Test("a batch of 2,000 receipts over 50 pushes (the writer's largest) gives exact counts", arguments: StoreBackend.allCases)
    func largeBatch(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        let batch = (0..<2_000).map { i in
            stored(
                RichPushReceipt(pushID: "bulk-\(i % 50)", receiptID: "r\(i / 2)", outcome: .mediaAttached, elapsedMs: i % 3_000, mediaBytes: 10),
                at: 1_700_000_000_000 + i)
        }
        let results = try await store.insert(batch)
        // r0 lands in bulk-0 and bulk-1, …: keys are (push, id), so all 2,000 are distinct.
        #expect(results.filter { $0 }.count == 2_000)
        let again = try await store.insert(batch)
        #expect(again.filter { $0 }.isEmpty)
        let all = try await store.pushes(limit: 1_000)
        #expect(all.count == 50)
        #expect(all.map(\.delivered).reduce(0, +) == 2_000)
        #expect(all.map(\.mediaBytes).reduce(0, +) == 20_000)
        #expect(all.allSatisfy { $0.elapsedMs.count == 40 })
        try await store.close()
    }

    @Test("an empty store answers with no pushes and a zero dashboard", arguments: StoreBackend.allCases)
    func empty(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        #expect(try await store.pushes(limit: 100).isEmpty)
        #expect(try await store.push("none") == nil)
        let dash = try await store.dashboard(maximumBuckets: 60)
        #expect(dash.totalReceipts == 0 && dash.sent == 0 && dash.totalPushes == 0)
        #expect(dash.timeline.isEmpty)
        #expect(dash.p50Ms == nil)
        try await store.close()
    }

    @Test("a closed store refuses writes with a store error", arguments: StoreBackend.allCases)
    func closedRefuses(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        try await store.close()
        let error = try await #require(throws: RichPushError.self) { try await store.insert([stored(RichPushReceipt(pushID: "late"))]) }
        #expect(error.code == .store)
        #expect(error.message.contains("closed"))
    }
}
