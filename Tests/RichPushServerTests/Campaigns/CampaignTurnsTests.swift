import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Fair campaigns in both stores (schema version 10): running campaigns take turns chunk by chunk,
/// a higher `queue_priority` goes first, a campaign held off (its second's budget spent, or a
/// provider stopped it) is skipped until its time, and the idle worker's timer says when.
@Suite("campaign store: turns, priority, hold-offs")
struct CampaignTurnsTests {
    static func open(_ fixture: StoreFixture) throws -> any ReceiptStore & CampaignStore {
        try CampaignStoreTests.open(fixture)
    }

    static func running(_ store: any CampaignStore, _ id: String, count: Int, prefix: String, priority: Int = 0, perMinute: Int? = nil) throws {
        var draft = CampaignStoreTests.draft(id, audience: .tokens(CampaignHarness.tokens(count, prefix: prefix)), chunkSize: 1)
        draft.provider = "apns"
        draft.queuePriority = priority
        draft.perMinute = perMinute
        _ = try store.createCampaign(draft)
    }

    @Test("equal priorities alternate chunk by chunk; a higher priority goes first", arguments: StoreBackend.allCases)
    func turns(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try Self.open(fixture)
        defer { try? store.close() }
        try Self.running(store, "a", count: 3, prefix: "a1")
        try Self.running(store, "b", count: 3, prefix: "b1")
        var order: [String] = []
        for n in 0..<4 {
            let chunk = try #require(try store.claimCampaignChunk(owner: "w\(n)", nowMs: 2_000 + n, leaseMs: 60_000))
            order.append(chunk.campaign.id)
        }
        #expect(order == ["a", "b", "a", "b"])
        // A campaign of priority 5 created last takes every free worker first.
        try Self.running(store, "c", count: 2, prefix: "c1", priority: 5)
        let next = try (0..<3).map { n in try #require(try store.claimCampaignChunk(owner: "v\(n)", nowMs: 3_000 + n, leaseMs: 60_000)).campaign.id }
        #expect(next == ["c", "c", "a"])
    }

    @Test("a campaign whose second's budget is spent is held off to the next second; the others are claimed meanwhile", arguments: StoreBackend.allCases)
    func throttledHoldsNoWorker(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try Self.open(fixture)
        defer { try? store.close() }
        try Self.running(store, "a-slow", count: 5, prefix: "d1", perMinute: 60)
        try Self.running(store, "b-fast", count: 5, prefix: "e1")
        let now = 10_000_500
        let first = try #require(try store.claimCampaignChunk(owner: "s1", nowMs: now, leaseMs: 60_000))
        #expect(first.campaign.id == "a-slow")
        // 60 a minute: one send this second, then nothing.
        #expect(try store.reserveCampaignBudget(campaignID: "a-slow", perMinute: 60, nowMs: now, wanted: 5) == 1)
        #expect(try store.reserveCampaignBudget(campaignID: "a-slow", perMinute: 60, nowMs: now, wanted: 5) == 0)
        try store.releaseCampaignChunk(first, nowMs: now, error: nil, webhooks: nil, hold: .nextSecond)
        // Held off until 10,001,000: the workers take the other campaign meanwhile.
        for n in 0..<3 {
            let chunk = try #require(try store.claimCampaignChunk(owner: "f\(n)", nowMs: now + 100 + n, leaseMs: 60_000))
            #expect(chunk.campaign.id == "b-fast")
        }
        #expect(try store.nextCampaignTimer(nowMs: now + 200) == 300)
        let again = try #require(try store.claimCampaignChunk(owner: "s2", nowMs: 10_001_000, leaseMs: 60_000))
        #expect(again.campaign.id == "a-slow")
        #expect(try store.campaign("a-slow")?.nextClaimMs == 10_001_000)
    }

    @Test("a campaign a provider stopped is held off for the given time", arguments: StoreBackend.allCases)
    func stoppedIsHeldOff(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try Self.open(fixture)
        defer { try? store.close() }
        try Self.running(store, "c-stopped", count: 2, prefix: "f1")
        let chunk = try #require(try store.claimCampaignChunk(owner: "x", nowMs: 5_000, leaseMs: 60_000))
        try store.releaseCampaignChunk(chunk, nowMs: 5_000, error: "APNs refused the server's settings", webhooks: nil, hold: .milliseconds(5_000))
        #expect(try store.claimCampaignChunk(owner: "y", nowMs: 9_999, leaseMs: 60_000) == nil)
        #expect(try store.nextCampaignTimer(nowMs: 9_000) == 1_000)
        #expect(try store.claimCampaignChunk(owner: "z", nowMs: 10_000, leaseMs: 60_000)?.campaign.id == "c-stopped")
        #expect(try store.campaign("c-stopped")?.lastError == "APNs refused the server's settings")
    }
}
