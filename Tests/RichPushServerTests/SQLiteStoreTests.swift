import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

@Suite("SQLite store")
struct SQLiteStoreTests {
    private func stored(_ r: Receipt, at ms: Int = 1_700_000_000_000) -> StoredReceipt {
        StoredReceipt(receipt: r, userAgent: "RichPushTests/1", receivedAtMs: ms)
    }

    @Test("the same receipt_id is stored once per push and event; receipts without one are each counted")
    func dedup() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("s.sqlite").path)
        let results = try store.insert([
            stored(Receipt(pushID: "p", receiptID: "a")),
            stored(Receipt(pushID: "p", receiptID: "a")),
            stored(Receipt(pushID: "p", event: .opened, receiptID: "a")),
            stored(Receipt(pushID: "q", receiptID: "a")),
            stored(Receipt(pushID: "p")),
            stored(Receipt(pushID: "p")),
        ])
        #expect(results == [true, false, true, true, true, true])
        #expect(try store.insert([stored(Receipt(pushID: "p", receiptID: "a"))]) == [false])
        let p = try #require(try store.push("p"))
        #expect(p.delivered == 3)
        #expect(p.opened == 1)
        try store.close()
    }

    @Test("per-push figures are exact: outcomes, reasons, media bytes, p50/p95, first and last seen")
    func figures() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("s.sqlite").path)
        var batch: [StoredReceipt] = []
        // 20 delivered: elapsed 100, 200, …, 2000 ms; 15 media_attached (1,000 B each), 5 timeouts.
        for i in 1...20 {
            let attached = i <= 15
            batch.append(
                stored(
                    Receipt(
                        pushID: "2018001", receiptID: "r\(i)", outcome: attached ? .mediaAttached : .textOnly,
                        reason: attached ? nil : .timeout, elapsedMs: i * 100, mediaBytes: attached ? 1_000 : nil,
                        mediaType: attached ? "public.jpeg" : nil
                    ), at: 1_700_000_000_000 + i * 1_000))
        }
        for i in 1...4 { batch.append(stored(Receipt(pushID: "2018001", event: .opened, receiptID: "r\(i)"), at: 1_700_000_100_000)) }
        _ = try store.insert(batch)
        let p = try #require(try store.push("2018001"))
        #expect(p.delivered == 20)
        #expect(p.opened == 4)
        #expect(p.outcomes == ["media_attached": 15, "text_only": 5])
        #expect(p.reasons == ["timeout": 5])
        #expect(p.mediaBytes == 15_000)
        #expect(p.elapsedMs == .init(count: 20, p50: 1_000, p95: 1_900))
        #expect(p.firstSeen == "2023-11-14T22:13:21.000Z")
        #expect(p.lastSeen == "2023-11-14T22:15:00.000Z")
        #expect(p.sent == nil && p.accepted == nil && p.displayRate == nil)
        #expect(try store.push("unknown") == nil)

        let dash = try store.dashboard(maximumBuckets: 60)
        #expect(dash.totalReceipts == 24)
        #expect(dash.timeline.map(\.delivered).reduce(0, +) == 20)
        #expect(dash.timeline.map(\.opened).reduce(0, +) == 4)
        #expect(dash.timing.map(\.count).reduce(0, +) == 20)
        #expect(dash.reasons.first?.reason == "timeout")
        #expect(dash.p50Ms == 1_000)
        #expect(dash.p95Ms == 1_900)
        try store.close()
    }

    @Test("recorded sends give sent, accepted and display rate = delivered / accepted")
    func sends() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite").path
        let store = try SQLiteStore(path: path)
        try store.recordSend(
            PushSendRecord(
                pushID: "p", sentAtMs: 1_700_000_000_000,
                tokens: (0..<10).map { .init(deviceToken: "tok\($0)", status: $0 < 8 ? 200 : 410, reason: $0 < 8 ? nil : "Unregistered") }
            ))
        #expect(try store.push("p")?.sent == 10)
        #expect(try store.push("p")?.delivered == 0)
        _ = try store.insert((0..<6).map { stored(Receipt(pushID: "p", receiptID: "d\($0)")) })
        let p = try #require(try store.push("p"))
        #expect(p.accepted == 8)
        #expect(p.displayRate == 0.75)
        try store.close()
        // Reopening keeps everything.
        let again = try SQLiteStore(path: path)
        #expect(try again.push("p")?.delivered == 6)
        #expect(try again.pushes(limit: 10).map(\.pushID) == ["p"])
    }

    @Test("a postgres:// --db gives a clear error")
    func postgresNotBuilt() {
        #expect(StoreLocation.parse("postgres://u@h/db") == .postgres(url: "postgres://u@h/db"))
        #expect(StoreLocation.parse(nil) == .sqlite(path: "richpush.sqlite"))
        do {
            _ = try StoreLocation.parse("postgresql://h/db").open()
            Issue.record("expected an error")
        } catch let error as RichPushError {
            #expect(error.message.contains("PostgreSQL store not built yet; use a file path"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
