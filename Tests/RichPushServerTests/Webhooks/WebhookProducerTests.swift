import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The events written by campaigns and the media check, end to end: `richpush serve` children
/// with `--webhook-url TYPES=URL` and the local receiver verifying each signature.
@Suite("webhooks: campaign.finished and media.refused", .serialized)
struct WebhookProducerTests {
    /// The verified events of `type`, distinct by id.
    static func events(_ receiver: WebhookReceiverProcess, _ type: String) throws -> [[String: Any]] {
        var seen = Set<String>()
        return try receiver.verified().filter { e in
            guard e["type"] as? String == type, let id = e["id"] as? String else { return false }
            return seen.insert(id).inserted
        }
    }

    /// Waits for `count` events of `type`, then a while longer so that a duplicate would show.
    static func waitFor(_ receiver: WebhookReceiverProcess, _ type: String, count: Int) async throws -> [[String: Any]] {
        try await receiver.wait("\(count) \(type)") { entries in entries.filter { $0["type"] as? String == type }.count >= count }
        try await Task.sleep(for: .seconds(1.5))
        return try events(receiver, type)
    }

    /// `campaign.finished` carries what `GET /v1/campaigns/{id}` answers once it ended.
    static func expectFigures(_ data: [String: Any], _ campaign: [String: Any]) {
        for key in ["campaign_id", "push_id", "state", "targets", "sent", "accepted", "failed", "skipped", "resent_after_crash"] {
            #expect("\(data[key] ?? "absent")" == "\(campaign[key] ?? "absent")", "\(key)")
        }
        #expect(data["started_at"] as? String != nil)
        #expect(data["finished_at"] as? String != nil)
    }

    @Test("SQLite: a campaign over 3 chunks finishes → exactly one campaign.finished with its counters; a cancel → one with state cancelled")
    func campaignFinishedSQLite() async throws {
        let dead = CampaignHarness.tokens(1, prefix: "dead")
        let mock = try await MockAPNsProcess(script: [dead[0]: [["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000]]])
        defer { mock.stop() }
        let receiver = try await WebhookReceiverProcess(secret: WebhookDeliveryTests.secret)
        let server = try await ServerProcess(
            extraArguments: mock.serveArguments() + ["--campaign-chunk-size", "7"]
                + WebhookDeliveryTests.arguments(receiver, types: "campaign.finished"))
        let tokens = CampaignHarness.tokens(19, prefix: "f1") + dead
        let id = try await CampaignHarness.createID(server, ["audience": ["tokens": tokens], "push_id": "wh-camp", "title": "Sale"])
        let done = try await CampaignHarness.waitFor([server], id)
        let finished = try await Self.waitFor(receiver, "campaign.finished", count: 1)
        #expect(finished.count == 1, "exactly one event: \(finished)")
        let data = try #require(finished.first?["data"] as? [String: Any])
        #expect(data["campaign_id"] as? String == id)
        #expect(data["state"] as? String == "finished")
        #expect(data["targets"] as? Int == 20)
        #expect(data["sent"] as? Int == 20)
        #expect(data["accepted"] as? Int == 19)
        #expect(data["failed"] as? Int == 1)
        #expect(data["skipped"] as? Int == 0)
        #expect(data["resent_after_crash"] as? Int == 0)
        #expect(data["title"] as? String == "Sale")
        Self.expectFigures(data, done)
        #expect(try receiver.verified().allSatisfy { $0["type"] as? String == "campaign.finished" }, "the endpoint gets only its types")

        // Cancelled mid-way (2 a second): one event, state cancelled, the sends so far.
        let slow = try await CampaignHarness.createID(
            server, ["audience": ["tokens": CampaignHarness.tokens(100, prefix: "f2")], "title": "Slow", "per_minute": 120])
        try await Task.sleep(for: .seconds(1.5))
        let cancel = try await server.client().request("POST", "/v1/campaigns/\(slow)/cancel", headers: server.admin)
        #expect(cancel.status == 200, "\(cancel.text)")
        let again = try await server.client().request("POST", "/v1/campaigns/\(slow)/cancel", headers: server.admin)
        #expect(again.status == 200)
        let both = try await Self.waitFor(receiver, "campaign.finished", count: 2)
        let cancelled = both.compactMap { $0["data"] as? [String: Any] }.filter { $0["campaign_id"] as? String == slow }
        #expect(cancelled.count == 1, "one event for the cancel, none for the repeated cancel: \(cancelled)")
        #expect(cancelled.first?["state"] as? String == "cancelled")
        #expect(cancelled.first?["targets"] as? Int == 100)
        try await Task.sleep(for: .seconds(1))
        let after = try await CampaignHarness.campaign(server, slow)
        let sentAtCancel: Int = cancelled.first?["sent"] as? Int ?? -1
        let sentAfter: Int = after["sent"] as? Int ?? -1
        #expect(sentAtCancel >= 0 && sentAtCancel <= sentAfter, "at the cancel \(sentAtCancel), after \(sentAfter)")
        #expect(await server.terminate() == 0)
    }

    @Test("PostgreSQL, 2 instances sharing the chunks: exactly one campaign.finished")
    func campaignFinishedTwoInstances() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let receiver = try await WebhookReceiverProcess(secret: WebhookDeliveryTests.secret)
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let arguments =
            mock.serveArguments() + ["--campaign-chunk-size", "5"] + WebhookDeliveryTests.arguments(receiver, types: "campaign.finished")
        let servers = try await MultiInstanceTests.startInstances(2, url: database.url, extraArguments: arguments)
        let tokens = CampaignHarness.tokens(200, prefix: "f3")
        let id = try await CampaignHarness.createID(servers[0], ["audience": ["tokens": tokens], "push_id": "wh-pg", "title": "Both"])
        let done = try await CampaignHarness.waitFor(servers, id)
        let finished = try await Self.waitFor(receiver, "campaign.finished", count: 1)
        #expect(finished.count == 1, "exactly one event over both instances: \(finished.count)")
        let data = try #require(finished.first?["data"] as? [String: Any])
        #expect(data["targets"] as? Int == 200)
        #expect(data["accepted"] as? Int == 200)
        Self.expectFigures(data, done)
        let rows = try await database.execute("SELECT count(*) FROM webhook_outbox WHERE event_type = 'campaign.finished'")
        #expect(rows == ["0"], "delivered rows are deleted, none left over: \(rows)")
        for server in servers { #expect(await server.terminate() == 0) }
    }

    @Test("a media URL answering 404 (422) and a WebP sent as text: one media.refused each, with the URL and the reason")
    func mediaRefused() async throws {
        let files = try await SendMediaFiles.shared()
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let receiver = try await WebhookReceiverProcess(secret: WebhookDeliveryTests.secret)
        let server = try await ServerProcess(
            extraArguments: mock.serveArguments() + SendMediaCheckTests.localMedia(files)
                + WebhookDeliveryTests.arguments(receiver, types: "media.refused"))
        let c = server.client()
        let missing = files.url("missing.jpg")
        let notFound = try await c.postJSON(
            "/v1/pushes", try SendMediaCheckTests.json(["push_id": "wh-404", "tokens": [SendMediaCheckTests.token], "title": "t", "image": missing]),
            headers: server.admin)
        #expect(notFound.status == 422, "\(notFound.text)")
        let webp = files.url("f/photo.webp")
        let text = try await c.postJSON(
            "/v1/pushes",
            try SendMediaCheckTests.json([
                "push_id": "wh-text", "tokens": [SendMediaCheckTests.token], "title": "t", "image": webp, "on_media_error": "send_text",
            ]), headers: server.admin)
        #expect(text.status == 200, "\(text.text)")
        // An attachable URL: no event.
        let ok = try await c.postJSON(
            "/v1/pushes",
            try SendMediaCheckTests.json(["push_id": "wh-ok", "tokens": [SendMediaCheckTests.token], "title": "t", "image": files.url("f/photo.jpg")]),
            headers: server.admin)
        #expect(ok.status == 200, "\(ok.text)")

        let refused = try await Self.waitFor(receiver, "media.refused", count: 2)
        #expect(refused.count == 2, "\(refused)")
        let byPush = Dictionary(
            refused.compactMap { $0["data"] as? [String: Any] }.map { ($0["push_id"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(Set(byPush.keys) == ["wh-404", "wh-text"])
        #expect(byPush["wh-404"]?["url"] as? String == missing)
        #expect(byPush["wh-404"]?["reason"] as? String == "http_status")
        let notFoundMessage: String = byPush["wh-404"]?["message"] as? String ?? ""
        #expect(notFoundMessage.contains("404"), "\(notFoundMessage)")
        #expect(byPush["wh-text"]?["url"] as? String == webp)
        #expect(byPush["wh-text"]?["reason"] as? String == "unsupported_format")
        #expect(await server.terminate() == 0)
    }
}
