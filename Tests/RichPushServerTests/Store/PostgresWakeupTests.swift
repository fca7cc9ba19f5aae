import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// LISTEN/NOTIFY wake-ups on PostgreSQL: a campaign created or a webhook event written by one
/// instance wakes the idle loops of another at COMMIT; a wait with nothing to wake it ends at its
/// timeout (the slow poll); a LISTEN session killed by the server is made again and wakes every
/// loop once (what was notified meanwhile is not known), and notifications flow again.
@Suite("PostgreSQL wake-ups (LISTEN/NOTIFY)", .serialized)
struct PostgresWakeupTests {
    /// Polls `condition` every 20 ms for up to `seconds`.
    static func eventually(_ seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test("another instance's campaign and webhook event wake the waits; nothing wakes them otherwise; a killed session comes back")
    func wakeUps() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let listening = try PostgresStore(url: database.url, log: { _ in })
        defer { try? listening.close() }
        let writing = try PostgresStore(url: database.url, log: { _ in })
        defer { try? writing.close() }
        let listener = listening.listener
        _ = listener.generation(of: PostgresListener.campaigns)
        #expect(await Self.eventually { listener.isListening && listener.sessions == 1 })

        // Nothing written: the wait ends at its timeout, not notified.
        var campaigns = listener.generation(of: PostgresListener.campaigns)
        #expect(await listener.wait(for: PostgresListener.campaigns, sinceGeneration: campaigns, timeoutMs: 300) == false)

        // A campaign created on the other store wakes it long before the 60 s timeout.
        let started = Date()
        var draft = CampaignStoreTests.draft("a1", audience: .tokens([CampaignHarness.tokens(1, prefix: "ee")[0]]))
        draft.provider = "apns"
        _ = try writing.createCampaign(draft)
        #expect(await listener.wait(for: PostgresListener.campaigns, sinceGeneration: campaigns, timeoutMs: 60_000))
        #expect(Date().timeIntervalSince(started) < 60)

        // A webhook event written on the other store wakes the webhook loops.
        let webhooks = listener.generation(of: PostgresListener.webhooks)
        let endpoint = WebhookEndpoint(url: "https://hooks.example.com/x", secret: Data("s".utf8)).key
        try writing.enqueueWebhooks([
            WebhookDelivery(endpoint: endpoint, event: WebhookEvent(type: .pushSent, subject: "p", createdAtMs: 1, data: [:]))
        ])
        #expect(await listener.wait(for: PostgresListener.webhooks, sinceGeneration: webhooks, timeoutMs: 60_000))

        // The server ends the LISTEN session: it is made again, every loop wakes once, and
        // notifications arrive on the new session.
        _ = try await database.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'richpush listen' AND datname = current_database()")
        #expect(await Self.eventually { listener.sessions == 2 && listener.isListening })
        campaigns = listener.generation(of: PostgresListener.campaigns)
        var other = CampaignStoreTests.draft("a2", audience: .tokens([CampaignHarness.tokens(1, prefix: "ef")[0]]))
        other.provider = "apns"
        _ = try writing.createCampaign(other)
        #expect(await listener.wait(for: PostgresListener.campaigns, sinceGeneration: campaigns, timeoutMs: 60_000))

        // Closing the store stops the session.
        try listening.close()
        #expect(await Self.eventually { !listener.isListening })
    }

    @Test("the next timer of an idle worker: the earliest send_at of a scheduled campaign, or the lease end of a leased chunk")
    func nextTimer() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let store = try PostgresStore(url: database.url, log: { _ in }, clock: .caller)
        defer { try? store.close() }
        #expect(try store.nextCampaignTimer(nowMs: 1_000) == nil)
        var later = CampaignStoreTests.draft("b1", audience: .tokens([CampaignHarness.tokens(1, prefix: "ab")[0]]))
        (later.provider, later.sendAtMs) = ("apns", 90_000)
        _ = try store.createCampaign(later)
        #expect(try store.nextCampaignTimer(nowMs: 1_000) == 89_000)
        var now = CampaignStoreTests.draft("b2", audience: .tokens([CampaignHarness.tokens(1, prefix: "ac")[0]]))
        now.provider = "apns"
        _ = try store.createCampaign(now)
        _ = try #require(try store.claimCampaignChunk(owner: "w", nowMs: 5_000, leaseMs: 1_000))
        #expect(try store.nextCampaignTimer(nowMs: 5_000) == 1_000)
    }

    @Test("an idle campaign worker on PostgreSQL sends a campaign another instance created without waiting for its slow poll")
    func idleWorkerWakes() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let store = try PostgresStore(url: database.url, log: { _ in })
        let server = try InProcessServer(store: store) { configuration in
            var apns = APNsSettings(
                keyFile: mock.keyFile.path, keyID: MockAPNsProcess.keyID, teamID: MockAPNsProcess.teamID, topic: MockAPNsProcess.topic,
                environment: .custom("https://127.0.0.1:\(mock.port)"), caFile: mock.caFile.path)
            apns.connections = 1
            configuration.apns = apns
            configuration.campaigns.workers = 1
            // Far longer than the test waits: only a notification (or finding it at once) sends it in time.
            configuration.campaigns.notifiedPollMs = 600_000
        }

        #expect(await Self.eventually { store.listener.isListening })
        // Another instance creates the campaign.
        let other = try PostgresStore(url: database.url, log: { _ in })
        defer { try? other.close() }
        let tokens = CampaignHarness.tokens(3, prefix: "bc")
        var draft = CampaignStoreTests.draft("c0ffee01", audience: .tokens(tokens), chunkSize: 10)
        draft.provider = "apns"
        _ = try other.createCampaign(draft)
        let deadline = Date().addingTimeInterval(90)
        var state = ""
        while Date() < deadline {
            state = try other.campaign("c0ffee01")?.state ?? ""
            if state == "finished" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(state == "finished")
        #expect(try other.campaign("c0ffee01")?.accepted == 3)
        let perToken = try await CampaignHarness.perToken(mock)
        for token in tokens { #expect(perToken[token] == 1) }
        try await server.shutdown()
    }
}
