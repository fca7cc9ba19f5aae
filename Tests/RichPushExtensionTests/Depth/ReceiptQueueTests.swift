import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

@Suite("Receipts that are never lost and counted once", .serialized)
struct ReceiptQueueTests {
    @Test func retryPolicyRetries408And429And5xxAndNetworkErrorsAndDropsOther4xx() {
        let policy = RetryPolicy.standard
        #expect(policy.decision(for: 200) == .delivered)
        #expect(policy.decision(for: 204) == .delivered)
        for status in [408, 429, 500, 502, 503] { #expect(policy.decision(for: status) == .retry) }
        #expect(policy.decision(for: nil) == .retry)
        for status in [400, 401, 404, 410, 413] { #expect(policy.decision(for: status) == .drop) }
        for attempts in 1...12 {
            let delay = policy.delay(afterAttempts: attempts)
            #expect(delay >= 0 && delay <= min(300, pow(2, Double(attempts - 1))))
        }
    }

    @Test func theReceiptIDIsStableForOnePushOnOneInstallation() throws {
        let a = try Fixtures.temporaryDirectory()
        let b = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: a); try? FileManager.default.removeItem(at: b) }
        let first = try InstallIdentity(directory: a).receiptID(for: "2018001")
        #expect(first.count == 32)
        #expect(first.allSatisfy { $0.isHexDigit })
        #expect(try InstallIdentity(directory: a).receiptID(for: "2018001") == first)
        #expect(try InstallIdentity(directory: a).receiptID(for: "2018002") != first)
        #expect(try InstallIdentity(directory: b).receiptID(for: "2018001") != first)
    }

    @Test func aSeenPushIsRememberedUntilItsTTL() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = SeenPushStore(directory: dir, timeToLive: 100)
        let t = Date(timeIntervalSince1970: 5_000_000)
        #expect(try store.markSeen("p1", now: t))
        #expect(try store.markSeen("p1", now: t.addingTimeInterval(50)) == false)
        #expect(try store.markSeen("p1", now: t.addingTimeInterval(101)))
    }

    @Test func theQueueIsBoundedInCountAndAge() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let queue = ReceiptQueue(directory: dir, maximumEntries: 3, maximumAge: 1_000)
        let t = Date(timeIntervalSince1970: 9_000_000)
        for i in 0..<5 {
            let receipt = RichPushReceipt(pushID: "p\(i)", receiptID: "r\(i)")
            try queue.enqueue(PendingReceipt(receipt: receipt, url: "http://127.0.0.1:1/", queuedAt: t.timeIntervalSince1970 + Double(i)), now: t)
        }
        #expect(try queue.entries().map(\.receipt.pushID) == ["p2", "p3", "p4"])
        // The same receipt id is queued once.
        #expect(
            try queue.enqueue(PendingReceipt(receipt: RichPushReceipt(pushID: "p4", receiptID: "r4"), url: "x", queuedAt: t.timeIntervalSince1970), now: t)
                == false)
        _ = try queue.claimDue(now: t.addingTimeInterval(1_002.5), lease: 10)
        #expect(try queue.entries().map(\.receipt.pushID) == ["p3", "p4"])
    }

    @Test func aReceiptQueuedWhileTheServerIsDownArrivesExactlyOnceWhenItIsUp() async throws {
        let state = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        // A port held for the test with nothing listening yet: the receipts URL refuses
        // connections, and no other test's server can take the port before this one's starts.
        let reservation = try PortReservation()
        defer { withExtendedLifetime(reservation) {} }
        let port = reservation.port
        let url = "http://127.0.0.1:\(port)/v1/receipts"

        let down = try await DepthSupport.run(["receipt-submit", state.path, url, "push-down-up"])
        #expect(down.status == 0, "\(down.stderr)")
        #expect(down.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "failed -")
        let queued = try ReceiptQueue(directory: state).entries()
        #expect(queued.count == 1)
        #expect(queued.first?.attempts == 1)

        let (server, _) = try await DepthSupport.receiptServer(port: port)
        // Killed when released at the end (DepthServer.deinit): nothing blocks the pool.
        defer { withExtendedLifetime(server) {} }
        // The first retry waits at most 1 s (full jitter); wait it out, then flush twice.
        let wait = max(0, (queued.first?.notBefore ?? 0) - Date().timeIntervalSince1970) + 0.05
        try await Task.sleep(for: .milliseconds(Int(wait * 1000)))
        let first = try await DepthSupport.run(["receipt-flush", state.path])
        #expect(first.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "sent=1 kept=0 dropped=0 remaining=0")
        let second = try await DepthSupport.run(["receipt-flush", state.path])
        #expect(second.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "sent=0 kept=0 dropped=0 remaining=0")
        // A second run of the extension for the same push sends nothing.
        let again = try await DepthSupport.run(["receipt-submit", state.path, url, "push-down-up"])
        #expect(again.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "duplicate -")

        let received = try await DepthSupport.received(port: port)
        #expect(received.count == 1)
        #expect(received.first?["push_id"] == "push-down-up")
        #expect(received.first?["receipt_id"] == (try InstallIdentity(directory: state).receiptID(for: "push-down-up")))
    }

    @Test func aServerErrorKeepsTheReceiptAndAClientErrorDropsIt() async throws {
        let state = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let (server, port) = try await DepthSupport.receiptServer(statuses: "503,400")
        // Killed when released at the end (DepthServer.deinit): nothing blocks the pool.
        defer { withExtendedLifetime(server) {} }
        let delivery = RichPushReceiptDelivery(directory: state, policy: RetryPolicy(baseDelay: 0, maximumDelay: 0))
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/v1/receipts"))
        let first = try await delivery.submit(RichPushReceipt(pushID: "p-503"), to: url, timeout: 3)
        #expect(first.status == .failed)
        #expect(first.httpStatus == 503)
        #expect(try delivery.queue.entries().count == 1)
        let report = try await delivery.flushPendingReceipts(timeout: 3)
        #expect(report.dropped.values.map { $0 } == [400])
        #expect(report.remaining == 0)
        #expect(try await DepthSupport.received(port: port).isEmpty)
    }

    @Test func twoProcessesFlushingAtOnceSendEachReceiptOnce() async throws {
        let state = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let (server, port) = try await DepthSupport.receiptServer()
        // Killed when released at the end (DepthServer.deinit): nothing blocks the pool.
        defer { withExtendedLifetime(server) {} }
        let queue = ReceiptQueue(directory: state)
        let now = Date().timeIntervalSince1970
        for i in 0..<12 {
            try queue.enqueue(
                PendingReceipt(receipt: RichPushReceipt(pushID: "p\(i)", receiptID: "r\(i)"), url: "http://127.0.0.1:\(port)/v1/receipts", queuedAt: now))
        }
        let results = try await DepthSupport.runConcurrently([["receipt-flush", state.path], ["receipt-flush", state.path]])
        #expect(results.map(\.0) == [0, 0])
        let received = try await DepthSupport.received(port: port)
        #expect(received.count == 12)
        #expect(Set(received.compactMap { $0["push_id"] }) == Set((0..<12).map { "p\($0)" }))
        #expect(try queue.entries().isEmpty)
    }

    /// The app's `opened` goes through the same queue as the extension's `delivered`: once per
    /// push, with the same stable `receipt_id`, and kept while the server is down.
    @Test func theAppsOpenedReceiptIsQueuedOnceWithThePushsStableReceiptID() async throws {
        let state = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let (server, port) = try await DepthSupport.receiptServer(statuses: "200,503,200")
        // Killed when released at the end (DepthServer.deinit): nothing blocks the pool.
        defer { withExtendedLifetime(server) {} }
        let delivery = RichPushReceiptDelivery(directory: state, policy: RetryPolicy(baseDelay: 0, maximumDelay: 0))
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/v1/receipts"))
        let delivered = try await delivery.submit(RichPushReceipt(pushID: "p-open", outcome: .mediaAttached), to: url, timeout: 3)
        #expect(delivered.status == .sent)
        // The tap while the server answers 503: queued, not lost.
        let opened = try await delivery.submit(RichPushReceipt(pushID: "p-open", event: .opened), to: url, timeout: 3)
        #expect(opened.status == .failed)
        #expect(opened.httpStatus == 503)
        #expect(try delivery.queue.entries().map(\.receipt.event) == [.opened])
        // A second tap on the same notification is not a second opened.
        #expect(try await delivery.submit(RichPushReceipt(pushID: "p-open", event: .opened), to: url, timeout: 3).status == .duplicate)
        let flushed = try await delivery.flushPendingReceipts(timeout: 3)
        let id = try InstallIdentity(directory: state).receiptID(for: "p-open")
        #expect(flushed.sent.keys.sorted() == ["\(id)-opened"])
        #expect(flushed.remaining == 0)
        let received = try await DepthSupport.received(port: port)
        #expect(received.map { $0["event"] } == ["delivered", "opened"])
        #expect(received.map { $0["receipt_id"] } == [id, id])
    }
}
