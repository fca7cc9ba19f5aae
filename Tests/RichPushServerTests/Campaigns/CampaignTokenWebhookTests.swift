import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Campaign sends emit `token.inactive` and `token.bad` as `POST /v1/pushes` does (issue 29 item
/// 4), written in the commit that records the token's result, so once per token: a token sent
/// again after a takeover, whose result the first owner's late answer would record again, gets
/// no second event.
@Suite("campaigns: token.inactive and token.bad, once per token", .serialized)
struct CampaignTokenWebhookTests {
    static let endpoint = WebhookEndpoint(url: "http://127.0.0.1:9/hooks", secret: Data("0123456789abcdef".utf8))

    static func verdicts(_ tokens: [String]) -> [CampaignTargetResult] {
        [
            CampaignTargetResult(
                token: tokens[0], outcome: "token_inactive", status: 410, reason: "Unregistered", provider: "apns",
                send: PushSendRecord.TokenResult(
                    deviceToken: tokens[0], status: 410, reason: "Unregistered", outcome: "token_inactive", state: .inactive, inactiveSinceMs: 1_000)),
            CampaignTargetResult(
                token: tokens[1], outcome: "token_bad", status: 400, reason: "BadDeviceToken", provider: "apns",
                send: PushSendRecord.TokenResult(deviceToken: tokens[1], status: 400, reason: "BadDeviceToken", outcome: "token_bad", state: .bad)),
            CampaignTargetResult(
                token: tokens[2], outcome: "accepted", status: 200, reason: nil, provider: "apns",
                send: PushSendRecord.TokenResult(deviceToken: tokens[2], status: 200, outcome: "accepted")),
        ]
    }

    @Test("the results' commit writes one event per inactive or bad token; the late owner's answers write none", arguments: StoreBackend.allCases)
    func oncePerToken(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try CampaignFixesTests.open(fixture)
        defer { try? store.close() }
        let tokens = CampaignHarness.tokens(3, prefix: "d9")
        var draft = CampaignStoreTests.draft("c-hooks", audience: .tokens(tokens), chunkSize: 10)
        draft.provider = "apns"
        _ = try store.createCampaign(draft)
        let first = try #require(try store.claimCampaignChunk(owner: "a", nowMs: 2_000, leaseMs: 100))
        _ = try store.markCampaignTargetsInFlight(first, tokens: tokens, nowMs: 2_000, leaseMs: 100)
        let second = try #require(try store.claimCampaignChunk(owner: "b", nowMs: 2_500, leaseMs: 1_000))
        _ = try store.markCampaignTargetsInFlight(second, tokens: tokens, nowMs: 2_500, leaseMs: 1_000)
        let settings = WebhookSettings(endpoints: [Self.endpoint])
        try store.recordCampaignResults(second, results: Self.verdicts(tokens), funnel: CampaignFunnelBatch(name: "1", sentAtMs: 2_600, webhooks: settings))
        try store.recordCampaignResults(first, results: Self.verdicts(tokens), funnel: CampaignFunnelBatch(name: "1", sentAtMs: 2_700, webhooks: settings))
        let outbox = try #require(store as? any WebhookOutboxStore)
        let claims = try outbox.claimWebhooks(endpoint: Self.endpoint.key, owner: "me", nowMs: 10_000, leaseMs: 60_000, limit: 10)
        #expect(claims.map(\.type) == [.tokenInactive, .tokenBad])
        #expect(claims.map(\.subject) == [tokens[0], tokens[1]])
        let body = try RichPushJSONValue.parse(claims[0].body)
        #expect(body["data"]?["push_id"]?.stringValue == "p-c-hooks")
        #expect(body["data"]?["provider"]?.stringValue == "apns")
        #expect(body["data"]?["reason"]?.stringValue == "Unregistered")
        #expect(try outbox.webhookStatus()[Self.endpoint.key]?.pending == 2)
    }

    @Test("end to end on 2 PostgreSQL instances: a campaign's 410 and BadDeviceToken reach the receiver once each, signed, with the campaign's push id")
    func endToEnd() async throws {
        let inactive = CampaignHarness.tokens(1, prefix: "dead")[0]
        let bad = CampaignHarness.tokens(1, prefix: "bad0")[0]
        let mock = try await MockAPNsProcess(script: [
            inactive: [["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000]], bad: [["status": 400, "reason": "BadDeviceToken"]],
        ])
        defer { mock.stop() }
        let receiver = try await WebhookReceiverProcess(secret: WebhookDeliveryTests.secret)
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let servers = try await MultiInstanceTests.startInstances(
            2, url: database.url, extraArguments: mock.serveArguments() + WebhookDeliveryTests.arguments(receiver) + ["--campaign-chunk-size", "5"])
        let tokens = CampaignHarness.tokens(38, prefix: "d8") + [inactive, bad]
        let id = try await CampaignHarness.createID(servers[0], ["audience": ["tokens": tokens], "push_id": "camp-hooks", "title": "Hooks"])
        let done = try await CampaignHarness.waitFor(servers, id, timeout: 120)
        #expect(done["accepted"] as? Int == 38)
        try await receiver.wait("the two token events and campaign.finished") { entries in
            Set(entries.filter { $0["verified"] as? Bool == true }.compactMap { $0["id"] as? String }).count >= 3
        }
        // Nothing more comes: wait for the outbox to be empty, then count.
        try await WebhookDeliveryTests.waitForMetric(servers[0], "richpush_webhook_pending") { $0 == 0 }
        let events = try receiver.verified()
        let tokenEvents = events.filter { ($0["type"] as? String ?? "").hasPrefix("token.") }
        #expect(tokenEvents.count == 2, "\(tokenEvents)")
        let byToken = Dictionary(tokenEvents.map { (($0["data"] as? [String: Any])?["token"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byToken[inactive]?["type"] as? String == "token.inactive")
        #expect(byToken[bad]?["type"] as? String == "token.bad")
        #expect(tokenEvents.allSatisfy { ($0["data"] as? [String: Any])?["push_id"] as? String == "camp-hooks" })
        #expect(events.filter { $0["type"] as? String == "campaign.finished" }.count == 1)
        for server in servers { #expect(await server.terminate() == 0) }
    }
}
