import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `richpush migrate` carries schema version 10 (issue 29): a campaign's priority, variants, test
/// and winner, the targets' variants and chunks' phases, devices' credentials, receipts' device
/// references, conversions, and the outbox's failures; the device credentials keep verifying.
@Suite("richpush migrate: version 10")
struct MigrationVersion10Tests {
    @Test("variants, credentials, device references, conversions and outbox failures arrive as SQLite held them")
    func versionTen() async throws {
        let fixture = try await StoreFixture.make(.sqlite)
        let source = try SQLiteStore(path: fixture.dbArgument)
        let tokens = CampaignHarness.tokens(4, prefix: "10")
        let registered = try source.registerDevices(
            tokens.enumerated().map {
                DeviceRegistration(token: $1, provider: "apns", platform: "ios", userID: "u\($0)", registeredAtMs: 5, recipientReceipts: true)
            })
        var draft = CampaignStoreTests.draft("a10a10a1", audience: .all(platform: nil), chunkSize: 1)
        draft.queuePriority = 3
        draft.testSharePercent = 50
        draft.testWindowMs = 60_000
        draft.winnerBy = "display_to_open"
        draft.attributionMs = 7_200_000
        draft.variants = [
            CampaignVariant(name: "A", pushID: "p10.a", title: "A", payload: #"{"aps":{"alert":"A"},"push_id":"p10.a"}"#, weight: 50),
            CampaignVariant(name: "B", pushID: "p10.b", title: "B", payload: #"{"aps":{"alert":"B"},"push_id":"p10.b"}"#, weight: 50, mediaReport: "[]"),
        ]
        _ = try source.createCampaign(draft)
        _ = try source.insert([
            StoredReceipt(receipt: RichPushReceipt(pushID: "p10.a", receiptID: "r1"), userAgent: nil, receivedAtMs: 9, deviceID: registered[0].deviceID)
        ])
        _ = try source.recordConversion(
            Conversion(
                pushID: "p10.a", conversionID: "c1", campaignID: "a10a10a1", variant: "A", deviceID: registered[0].deviceID, userID: "u0", value: 2.5,
                occurredAtMs: 10, recordedAtMs: 11))
        let endpoint = WebhookOutboxStoreTests.endpoint.key
        try source.enqueueWebhooks(WebhookOutboxStoreTests.settings.deliveries(for: [WebhookEvent(type: .pushSent, subject: "s", createdAtMs: 1, data: [:])]))
        let claim = try #require(try source.claimWebhooks(endpoint: endpoint, owner: "x", nowMs: 5, leaseMs: 100, limit: 1).first)
        try source.finishWebhooks(
            [WebhookAttempt(seq: claim.seq, outcome: .retry(nextAttemptMs: 50), status: nil, error: "refused", atMs: 6, sent: false)],
            endpoint: endpoint, owner: "x")
        try source.close()

        let database = try await PostgresTestCluster.shared().makeDatabase()
        let (summary, _) = try await StoreCopyTests.copy(fixture.dbArgument, to: database.url)
        #expect(summary.flatMap(\.skipped).isEmpty, "\(summary.flatMap(\.skipped))")
        let target = try PostgresStore(url: database.url, log: { _ in }, clock: .caller)
        defer { try? target.close() }
        let campaign = try #require(try target.campaign("a10a10a1"))
        #expect(campaign.queuePriority == 3 && campaign.testSharePercent == 50 && campaign.testWindowMs == 60_000 && campaign.variantCount == 2)
        #expect(campaign.winnerBy == "display_to_open" && campaign.attributionMs == 7_200_000)
        #expect(try target.campaignVariants("a10a10a1") == draft.variants)
        // The test's chunks first, their targets with their variants; the rest waits for the winner.
        let test = try #require(try target.claimCampaignChunk(owner: "pg", nowMs: 2_000, leaseMs: 60_000))
        #expect(test.targets.allSatisfy { $0.variant != nil })
        #expect(try await database.execute("SELECT phase || ':' || count(*) FROM campaign_chunks GROUP BY phase ORDER BY phase") == ["rest:2", "test:2"])
        // Credentials: the same, still verifying a receipt.
        #expect(try target.deviceCredential(deviceID: registered[1].deviceID)?.secret == registered[1].deviceSecret)
        #expect(try target.recipients(RecipientQuery(pushID: "p10.a", state: .delivered)).recipients.map(\.deviceID) == [registered[0].deviceID])
        #expect(try target.conversionTotals(pushIDs: ["p10.a"])["p10.a"] == ConversionTotals(converted: 1, conversions: 1, value: 2.5))
        let due = try #require(try target.claimWebhooks(endpoint: endpoint, owner: "pg", nowMs: 100, leaseMs: 100, limit: 1).first)
        #expect(due.attempts == 0 && due.failures == 1)
    }
}
