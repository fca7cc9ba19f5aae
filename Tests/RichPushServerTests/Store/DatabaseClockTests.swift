import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// PostgreSQL compares leases, `send_at`, the throttle's seconds and idempotency claims on the
/// database's clock (issue 28, moved to issue 29): an instance whose clock is 30 s ahead takes
/// over no chunk, no webhook delivery and no idempotency claim still held, starts no campaign
/// early, and draws from the same second's budget. The same calls with each caller's clock
/// (`Clock.caller`) show the hazard the database's clock removes.
@Suite("PostgreSQL: leases and claims on the database's clock")
struct DatabaseClockTests {
    static let fast = 30_000

    static var now: Int { Int(Date().timeIntervalSince1970 * 1000) }

    static func campaign(_ store: any CampaignStore, _ id: String, sendAtMs: Int? = nil, perMinute: Int? = nil) throws {
        var draft = CampaignStoreTests.draft(id, audience: .tokens(CampaignHarness.tokens(4, prefix: "c1")), chunkSize: 2)
        draft.provider = "apns"
        draft.createdAtMs = now
        draft.sendAtMs = sendAtMs ?? now
        draft.perMinute = perMinute
        _ = try store.createCampaign(draft)
    }

    @Test("a chunk leased for 10 s is not taken over by an instance 30 s ahead; with each caller's clock it would be")
    func leases() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let right = try PostgresStore(url: database.url, log: { _ in })
        let ahead = try PostgresStore(url: database.url, log: { _ in })
        let naive = try PostgresStore(url: database.url, log: { _ in }, clock: .caller)
        defer { for store in [right, ahead, naive] { try? store.close() } }
        try Self.campaign(right, "leased")
        let held = try #require(try right.claimCampaignChunk(owner: "right", nowMs: Self.now, leaseMs: 10_000))
        _ = try right.markCampaignTargetsInFlight(held, tokens: held.targets.map(\.token), nowMs: Self.now, leaseMs: 10_000)
        // The other chunk is free; the held one is not, whatever the claimer's clock says.
        let other = try #require(try ahead.claimCampaignChunk(owner: "ahead", nowMs: Self.now + Self.fast, leaseMs: 10_000))
        #expect(other.chunk != held.chunk)
        #expect(try ahead.claimCampaignChunk(owner: "ahead-2", nowMs: Self.now + Self.fast, leaseMs: 10_000) == nil)
        // The same claim on the claimer's own clock takes the chunk in flight: what would be sent twice.
        let stolen = try #require(try naive.claimCampaignChunk(owner: "naive", nowMs: Self.now + Self.fast, leaseMs: 10_000))
        #expect(stolen.chunk == held.chunk)
        #expect(stolen.targets.allSatisfy { $0.wasInFlight })
    }

    @Test("send_at 20 s ahead: an instance 30 s ahead does not start the campaign early")
    func sendAt() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let ahead = try PostgresStore(url: database.url, log: { _ in })
        defer { try? ahead.close() }
        try Self.campaign(ahead, "later", sendAtMs: Self.now + 20_000)
        try ahead.advanceCampaigns(nowMs: Self.now + Self.fast)
        #expect(try ahead.campaign("later")?.state == "scheduled")
        #expect(try ahead.claimCampaignChunk(owner: "a", nowMs: Self.now + Self.fast, leaseMs: 10_000) == nil)
        // Its timer is measured on the database's clock too (about 20 s, not -10 s).
        let timer = try #require(try ahead.nextCampaignTimer(nowMs: Self.now + Self.fast))
        #expect(timer > 10_000 && timer <= 20_000, "\(timer)")
    }

    @Test("the throttle's second is the database's: an instance 30 s ahead takes from the same second's budget")
    func budgetSecond() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let right = try PostgresStore(url: database.url, log: { _ in })
        let ahead = try PostgresStore(url: database.url, log: { _ in })
        defer { for store in [right, ahead] { try? store.close() } }
        try Self.campaign(right, "throttled", perMinute: 60)
        // 60 a minute is one a second: whoever asks first in a second gets it. Retried when the
        // two calls straddled a second's boundary (they must fall in one database second), each
        // retry in a later second than every call before it, whose budget is whole again.
        var shared = false
        for attempt in 0..<5 where !shared {
            if attempt > 0 { try await Task.sleep(for: .milliseconds(1_100)) }
            let first = try right.reserveCampaignBudget(campaignID: "throttled", perMinute: 60, nowMs: Self.now, wanted: 1)
            let second = try ahead.reserveCampaignBudget(campaignID: "throttled", perMinute: 60, nowMs: Self.now + Self.fast, wanted: 1)
            shared = first + second == 1
        }
        #expect(shared, "the two instances drew two seconds' budgets")
    }

    @Test("an idempotency claim and a webhook lease held by one instance are not taken by an instance 30 s ahead")
    func claims() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let right = try PostgresStore(url: database.url, log: { _ in })
        let ahead = try PostgresStore(url: database.url, log: { _ in })
        defer { for store in [right, ahead] { try? store.close() } }
        #expect(try right.claimIdempotencyKey("k", scope: "s", bodySHA256: "h", nowMs: Self.now, leaseMs: 10_000, windowMs: 86_400_000) == .claimed)
        let second = try ahead.claimIdempotencyKey("k", scope: "s", bodySHA256: "h", nowMs: Self.now + Self.fast, leaseMs: 10_000, windowMs: 86_400_000)
        guard case .inProgress = second else {
            Issue.record("an instance 30 s ahead took the claim: \(second)")
            return
        }
        let endpoint = WebhookOutboxStoreTests.endpoint.key
        try right.enqueueWebhooks(
            WebhookOutboxStoreTests.settings.deliveries(for: [WebhookEvent(type: .pushSent, subject: "p", createdAtMs: Self.now, data: [:])]))
        #expect(try right.claimWebhooks(endpoint: endpoint, owner: "right", nowMs: Self.now, leaseMs: 10_000, limit: 5).count == 1)
        #expect(try ahead.claimWebhooks(endpoint: endpoint, owner: "ahead", nowMs: Self.now + Self.fast, leaseMs: 10_000, limit: 5).isEmpty)
    }

    @Test("two instances on one database, one 30 s fast, send a campaign with slow answers: every token once, nothing resent")
    func fastInstance() async throws {
        let mock = try await MockAPNsProcess(delayMs: 1_500)
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        func server(offsetMs: Int) throws -> InProcessServer {
            let store = try PostgresStore(url: database.url, log: { _ in })
            return try InProcessServer(store: store) { configuration in
                var apns = APNsSettings(
                    keyFile: mock.keyFile.path, keyID: MockAPNsProcess.keyID, teamID: MockAPNsProcess.teamID, topic: MockAPNsProcess.topic,
                    environment: .custom("https://127.0.0.1:\(mock.port)"), caFile: mock.caFile.path)
                apns.connections = 1
                configuration.apns = apns
                configuration.campaigns.leaseSeconds = 10
                configuration.campaigns.chunkSize = 20
                configuration.clock = { Int(Date().timeIntervalSince1970 * 1000) + offsetMs }
            }
        }
        let right = try server(offsetMs: 0)
        let ahead = try server(offsetMs: Self.fast)
        let tokens = CampaignHarness.tokens(200, prefix: "f5")
        let created = try await right.client().postJSON(
            "/v1/campaigns", try CampaignHarness.json(["audience": ["tokens": tokens], "push_id": "clock", "title": "Clock"]), headers: right.admin)
        #expect(created.status == 202, "\(created.text)")
        let id = try #require(try created.json()["campaign_id"] as? String)
        var last: [String: Any] = [:]
        let end = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < end {
            last = try await right.client().request("GET", "/v1/campaigns/\(id)", headers: right.admin).json()
            if last["state"] as? String == "finished" { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(last["state"] as? String == "finished", "\(last)")
        #expect(last["resent_after_crash"] as? Int == 0, "\(last)")
        let perToken = try await CampaignHarness.perToken(mock)
        #expect(perToken.values.allSatisfy { $0 == 1 }, "sent twice: \(perToken.filter { $0.value > 1 }.count)")
        #expect(Set(perToken.keys) == Set(tokens))
        try await right.shutdown()
        try await ahead.shutdown()
    }
}
