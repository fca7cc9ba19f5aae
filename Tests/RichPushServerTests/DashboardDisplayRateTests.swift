import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The dashboard's overall display rate is delivered / accepted over the pushes that were sent
/// through the server; receipts of pushes sent elsewhere do not inflate it.
@Suite("dashboard display rate")
struct DashboardDisplayRateTests {
    @Test("display rate counts delivered receipts of sent pushes only")
    func displayRateOfSentPushes() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("d.sqlite").path)
        try store.recordSend(PushSendRecord(pushID: "sent", sentAtMs: 1_700_000_000_000, tokens: (0..<4).map { .init(deviceToken: "t\($0)", status: 200) }))
        let receipts = (0..<3).map { StoredReceipt(receipt: Receipt(pushID: "sent", receiptID: "r\($0)"), userAgent: nil, receivedAtMs: 1_700_000_001_000) }
            + (0..<5).map { StoredReceipt(receipt: Receipt(pushID: "elsewhere", receiptID: "e\($0)"), userAgent: nil, receivedAtMs: 1_700_000_001_000) }
        _ = try store.insert(receipts)
        let snapshot = try store.dashboard(maximumBuckets: 60)
        #expect(snapshot.delivered == 8)
        #expect(snapshot.accepted == 4)
        #expect(snapshot.deliveredOfSentPushes == 3)
        let html = DashboardPage.render(snapshot, generatedAtMs: 1_700_000_002_000)
        #expect(html.contains("75.0 %"))
        #expect(!html.contains("200.0 %"))
        try store.close()
    }
}
