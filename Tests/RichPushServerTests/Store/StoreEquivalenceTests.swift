import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Both stores, fed the same mixed workload in the same batches, answer with the same bytes:
/// `GET /v1/pushes` and `GET /v1/pushes/{id}` JSON, the dashboard snapshot and its HTML.
@Suite("SQLite and PostgreSQL answer the same bytes")
struct StoreEquivalenceTests {
    /// 3,000 receipts over 40 pushes in batches of 1…300 (about 15 % repeats, some without
    /// receipt_id, both events, every outcome and reason, over an hour), and 12 sends.
    static func workload() -> (batches: [[StoredReceipt]], sends: [PushSendRecord]) {
        var random = SeededGenerator(state: 2018001)
        let outcomes: [RichPushOutcome?] = [.mediaAttached, .textOnly, .original, nil, RichPushOutcome(rawValue: "future_outcome")]
        let reasons: [RichPushReasonCode?] = [nil, .timeout, .tooLarge, .httpStatus, .network, RichPushReasonCode(rawValue: "future_reason")]
        var receipts: [StoredReceipt] = []
        for i in 0..<3_000 {
            let push = "campaign-\(Int.random(in: 0..<40, using: &random))"
            let repeatOld = !receipts.isEmpty && Int.random(in: 0..<100, using: &random) < 15
            if repeatOld, let old = receipts.randomElement(using: &random) {
                receipts.append(StoredReceipt(receipt: old.receipt, userAgent: "other", receivedAtMs: old.receivedAtMs + 5))
                continue
            }
            let receipt = RichPushReceipt(
                pushID: push, event: Int.random(in: 0..<5, using: &random) == 0 ? .opened : .delivered,
                receiptID: Int.random(in: 0..<20, using: &random) == 0 ? nil : "device-\(i)",
                outcome: outcomes.randomElement(using: &random) ?? nil, reason: reasons.randomElement(using: &random) ?? nil,
                elapsedMs: Int.random(in: 0..<4, using: &random) == 0 ? nil : Int.random(in: 0...31_000, using: &random),
                mediaBytes: Bool.random(using: &random) ? Int.random(in: 0...10_000_000, using: &random) : nil,
                mediaType: "public.jpeg"
            )
            receipts.append(
                StoredReceipt(receipt: receipt, userAgent: "RichPush/1", receivedAtMs: 1_700_000_000_000 + Int.random(in: 0..<3_600_000, using: &random)))
        }
        var batches: [[StoredReceipt]] = []
        var rest = receipts[...]
        while !rest.isEmpty {
            let n = Int.random(in: 1...300, using: &random)
            batches.append(Array(rest.prefix(n)))
            rest = rest.dropFirst(n)
        }
        // Sends from several sources (RichPush through APNs or FCM, batches recorded from elsewhere,
        // one with totals only), each batch with its id; one push gets two batches.
        var sends = (0..<12).map { k in
            PushSendRecord(
                pushID: "campaign-\(k * 3)", sentAtMs: 1_699_999_000_000 + k * 1_000, title: k % 2 == 0 ? "Title \(k)" : nil,
                tokens: (0..<Int.random(in: 1...30, using: &random)).map { t in
                    let status = [200, 200, 200, 410, 400, nil].randomElement(using: &random) ?? nil
                    return .init(
                        deviceToken: "token-\(Int.random(in: 0..<60, using: &random))", status: status,
                        reason: status == 200 ? nil : "Reason\(t)", apnsID: "id-\(t)", outcome: status == 200 ? "accepted" : "other",
                        state: status == 410 ? .inactive : (status == 400 ? .bad : nil), inactiveSinceMs: status == 410 ? 1_699_000_000_000 : nil)
                }, source: ["apns", "fcm", "backend"][k % 3], batchID: "batch-\(k)")
        }
        sends.append(
            PushSendRecord(
                pushID: "campaign-3", sentAtMs: 1_699_999_500_000, tokens: [], source: "onesignal", batchID: "os-1",
                reportedCounts: .init(sent: 1_200, accepted: 1_180, skipped: 4)))
        sends.append(
            PushSendRecord(
                pushID: "recorded-only", sentAtMs: 1_699_999_600_000, title: "Elsewhere",
                tokens: [
                    .init(deviceToken: "token-61", status: nil, reason: "Unregistered", outcome: "skipped")
                ], source: "apns", batchID: "apns-x"))
        return (batches, sends)
    }

    @Test("the same batches and sends give byte-identical JSON, snapshots and dashboard HTML")
    func sameAnswers() async throws {
        let sqlite = try await StoreFixture.make(.sqlite)
        let postgres = try await StoreFixture.make(.postgres)
        let a = try await sqlite.open()
        let b = try await postgres.open()
        let (batches, sends) = Self.workload()
        for (index, batch) in batches.enumerated() {
            let left = try await a.insert(batch)
            let right = try await b.insert(batch)
            #expect(left == right, "batch \(index)")
        }
        for send in sends {
            try await a.recordSend(send)
            try await b.recordSend(send)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let listA = try encoder.encode(PushList(pushes: try await a.pushes(limit: 1_000)))
        let listB = try encoder.encode(PushList(pushes: try await b.pushes(limit: 1_000)))
        #expect(listA == listB)
        #expect(try await a.pushes(limit: 1_000).count == 41)
        for k in [0, 1, 3, 39] {
            #expect(try encoder.encode(try await a.push("campaign-\(k)")) == encoder.encode(try await b.push("campaign-\(k)")))
        }
        for limit in [1, 7, 12] {
            #expect(try await a.pushes(limit: limit) == b.pushes(limit: limit))
        }
        for buckets in [60, 10, 1] {
            let left = try await a.dashboard(maximumBuckets: buckets)
            let right = try await b.dashboard(maximumBuckets: buckets)
            #expect(left == right)
            #expect(left.totalReceipts > 2_000)
            #expect(
                left.withOutcome == right.withOutcome && left.p50Ms == right.p50Ms && left.p95Ms == right.p95Ms && left.bucketSeconds == right.bucketSeconds)
            #expect(DashboardPage.render(left, generatedAtMs: 1_700_000_000_000) == DashboardPage.render(right, generatedAtMs: 1_700_000_000_000))
        }
        for token in (0..<60).map({ "token-\($0)" }) {
            let left = try await a.deviceTokenState(token)
            let right = try await b.deviceTokenState(token)
            #expect(left == right, "\(token)")
        }
        try await a.close()
        try await b.close()
    }
}
