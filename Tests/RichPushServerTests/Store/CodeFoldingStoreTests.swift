import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The attack of issue 22 item 2 on the stores: distinct unknown reason and outcome codes posted
/// to one push and to many pushes are kept up to their bounds (`CodeFolding`: 8 per push and
/// kind, 64 store-wide per kind) and counted as `other` past them; the design's codes are never
/// folded; the bounds hold across restarts and across two PostgreSQL instances.
@Suite("Unknown codes fold into other")
struct CodeFoldingStoreTests {
    static func receipt(_ push: String, _ i: Int, outcome: String? = nil, reason: String? = nil) -> StoredReceipt {
        StoredReceipt(
            receipt: RichPushReceipt(
                pushID: push, event: .delivered, receiptID: "r-\(i)", outcome: outcome.map(RichPushOutcome.init(rawValue:)),
                reason: reason.map(RichPushReasonCode.init(rawValue:))),
            userAgent: nil, receivedAtMs: 1_700_000_000_000 + i)
    }

    @Test("one push: 8 unknown reasons kept, the rest other; known codes never folded", arguments: StoreBackend.allCases)
    func onePush(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        // 500 distinct unknown reasons, each twice, plus every known reason, in batches of 100.
        var receipts = (0..<1_000).map { Self.receipt("p1", $0, outcome: "text_only", reason: "attack_\($0 % 500)") }
        receipts += RichPushReasonCode.known.enumerated().map { Self.receipt("p1", 10_000 + $0.offset, outcome: "text_only", reason: $0.element.rawValue) }
        for start in stride(from: 0, to: receipts.count, by: 100) {
            _ = try await store.insert(Array(receipts[start..<min(receipts.count, start + 100)]))
        }
        let push = try #require(try await store.push("p1"))
        // attack_0…attack_7 (first seen) are kept, twice each; 492 others × 2 = 984 are other.
        #expect(push.reasons.count == 8 + 1 + RichPushReasonCode.known.count)
        for i in 0..<8 { #expect(push.reasons["attack_\(i)"] == 2) }
        #expect(push.reasons["other"] == 984)
        for known in RichPushReasonCode.known { #expect(push.reasons[known.rawValue] == 1) }
        #expect(push.delivered == 1_000 + RichPushReasonCode.known.count)
        #expect(store.store.foldedCodes == 984)
        // The dashboard's reason table shows other as such (largest).
        let dashboard = try await store.dashboard(maximumBuckets: 10)
        #expect(dashboard.reasons.first?.reason == "other")
        #expect(dashboard.reasons.first?.count == 984)
        try await store.close()
        // A restart keeps the bound: a ninth unknown code still folds.
        let again = try await fixture.open()
        _ = try await again.insert([Self.receipt("p1", 20_000, reason: "attack_new"), Self.receipt("p1", 20_001, reason: "attack_3")])
        let after = try #require(try await again.push("p1"))
        #expect(after.reasons["other"] == 985)
        #expect(after.reasons["attack_3"] == 3)
        #expect(after.reasons["attack_new"] == nil)
        try await again.close()
    }

    @Test("many pushes: 64 unknown codes store-wide, outcomes too", arguments: StoreBackend.allCases)
    func manyPushes(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        // 2,000 pushes, each one new reason and one new outcome.
        let receipts = (0..<2_000).map { Self.receipt("push-\($0)", $0, outcome: "out_\($0)", reason: "why_\($0)") }
        for start in stride(from: 0, to: receipts.count, by: 250) { _ = try await store.insert(Array(receipts[start..<(start + 250)])) }
        let first = try #require(try await store.push("push-0"))
        #expect(first.reasons == ["why_0": 1])
        #expect(first.outcomes == ["out_0": 1])
        let last = try #require(try await store.push("push-1999"))
        #expect(last.reasons == ["other": 1])
        #expect(last.outcomes == ["other": 1])
        let dashboard = try await store.dashboard(maximumBuckets: 10)
        #expect(dashboard.reasons.first?.reason == "other")
        #expect(dashboard.reasons.first?.count == 2_000 - 64)
        // Known codes on a new push are never folded, however full the store is.
        _ = try await store.insert([Self.receipt("push-known", 5_000, outcome: "media_attached"), Self.receipt("push-known", 5_001, reason: "timeout")])
        let known = try #require(try await store.push("push-known"))
        #expect(known.outcomes == ["media_attached": 1])
        #expect(known.reasons == ["timeout": 1])
        try await store.close()
    }

    @Test("two PostgreSQL instances together admit 64 store-wide, not 128")
    func twoInstances() async throws {
        let fixture = try await StoreFixture.make(.postgres)
        let a = try await fixture.open()
        let b = try await fixture.open()
        let batches = (0..<40).map { n in (0..<10).map { Self.receipt("push-\(n)-\($0)", n * 10 + $0, reason: "code_\(n)_\($0)") } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (n, batch) in batches.enumerated() {
                let store = n % 2 == 0 ? a : b
                group.addTask { _ = try await store.insert(batch) }
            }
            try await group.waitForAll()
        }
        let other = try await a.dashboard(maximumBuckets: 10).reasons.first { $0.reason == "other" }?.count
        #expect(other == 400 - 64)
        try await a.close()
        try await b.close()
    }
}
