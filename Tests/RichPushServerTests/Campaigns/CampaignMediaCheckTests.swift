import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// Every campaign is checked like a push (issue 29 item 2): at `POST /v1/campaigns` its media
/// URL(s) go through the send-time media check of `POST /v1/pushes` — probe, optimise onto the
/// media edge, `media`/`on_media_error`, the 422 with the reason — once per campaign, before the
/// first chunk; the sends carry the checked payload and the campaign page shows what was found.
@Suite("campaigns: the media check at creation", .serialized)
struct CampaignMediaCheckTests {
    /// The mock's requests per media URL (`""`: none).
    static func mediaURLs(_ mock: MockAPNsProcess) async throws -> [String: Int] {
        var out: [String: Int] = [:]
        for (url, count) in try await mock.stats()["media_urls"]?.objectValue ?? [:] { out[url] = count.integerLiteralValue ?? -1 }
        return out
    }

    @Test("SQLite, no edge: WebP and a 404 are 422 media_refused (no campaign); send_text sends text to all; an attachable URL goes as it is")
    func checkWithoutEdge() async throws {
        let files = try await SendMediaFiles.shared()
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments() + SendMediaCheckTests.localMedia(files))
        let tokens = CampaignHarness.tokens(30, prefix: "ad")
        // A query of this test's own, so the shared media server's log counts only its fetches.
        let marker = "?campaign-check-\(UUID().uuidString.prefix(8))"
        let webp = files.url("f/photo.webp") + marker
        let refused = try await CampaignHarness.create(server, ["audience": ["tokens": tokens], "title": "Sale", "image": webp])
        #expect(refused.status == 422, "\(refused.text)")
        let error = try SendMediaCheckTests.error(refused)
        #expect(error["code"] as? String == "media_refused")
        #expect(error["field"] as? String == "image")
        #expect((error["message"] as? String ?? "").contains("(unsupported_format: "), "\(error)")
        let missing = try await CampaignHarness.create(
            server, ["audience": ["tokens": tokens], "payload": ["aps": ["alert": "Hi", "mutable-content": 1], "media-url": files.url("missing.jpg")]])
        #expect(missing.status == 422)
        #expect(try SendMediaCheckTests.error(missing)["field"] as? String == "payload")
        // Nothing was created, nothing sent.
        let list = try await server.client().request("GET", "/v1/campaigns", headers: server.admin).json()
        #expect((list["campaigns"] as? [Any])?.isEmpty == true)
        #expect(try await mock.stats()["requests"]?.intValue == 0)

        // send_text: created, and every target gets the push without the media.
        let text = try await CampaignHarness.create(
            server, ["audience": ["tokens": tokens], "push_id": "camp-text", "title": "Sale", "image": webp, "on_media_error": "send_text"])
        #expect(text.status == 202, "\(text.text)")
        let media = try #require((try text.json()["media"] as? [[String: Any]])?.first)
        #expect(media["action"] as? String == "sent_text")
        #expect(media["reason"] as? String == "unsupported_format")
        let id = try #require(try text.json()["campaign_id"] as? String)
        let done = try await CampaignHarness.waitFor([server], id)
        try await CampaignHarness.expectComplete(done, targets: 30, accepted: 30, mock: mock, tokens: tokens)
        #expect(try await Self.mediaURLs(mock) == ["": 30])
        // The check ran once, at creation: the campaign's sends fetched nothing more.
        let probesBefore = try await files.paths().filter { $0.contains("photo.webp" + marker) }.count
        // An attachable JPEG: checked, sent as it is to every target.
        let photo = files.url("f/photo.jpg") + marker
        let more = CampaignHarness.tokens(20, prefix: "ae")
        let plain = try await CampaignHarness.createID(server, ["audience": ["tokens": more], "push_id": "camp-photo", "title": "Photo", "image": photo])
        _ = try await CampaignHarness.waitFor([server], plain)
        #expect(try await Self.mediaURLs(mock)[photo] == 20)
        #expect(try await files.paths().filter { $0.contains("photo.webp" + marker) }.count == probesBefore)
        #expect(try await files.paths().filter { $0.contains("photo.jpg" + marker) }.count == 1, "the JPEG was fetched once, at creation")
        // The campaign's page and its JSON show the check.
        let page = try await server.client().request("GET", "/campaigns/\(id)", headers: server.admin).text
        #expect(page.contains("Media checked at creation"))
        #expect(page.contains("removed: the push went out as text"))
        let shown = try await CampaignHarness.campaign(server, id)
        #expect((shown["media"] as? [[String: Any]])?.first?["action"] as? String == "sent_text")
        #expect(await server.terminate() == 0)
    }

    @Test("PostgreSQL, 2 instances, the media edge: a WebP campaign goes out as the edge's JPEG from both instances, converted once")
    func optimizeAcrossInstances() async throws {
        let files = try await SendMediaFiles.shared()
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let reservation = try PortReservation()
        defer { withExtendedLifetime(reservation) {} }
        let publicURL = "https://127.0.0.1:\(reservation.port)"
        let edge = ["--media-public-url", publicURL, "--media-store-bytes", "10000000", "--campaign-chunk-size", "10"]
        let servers = try await MultiInstanceTests.startInstances(
            2, url: database.url, extraArguments: mock.serveArguments() + SendMediaCheckTests.localMedia(files) + edge,
            perInstance: [["--port", "\(reservation.port)"], []])
        let tokens = try await CampaignPostgresTests.seedDevices(database, count: 200, prefix: "af")
        let webp = files.url("f/photo.webp")
        let created = try await CampaignHarness.create(servers[0], ["audience": ["all": true], "push_id": "camp-edge", "title": "Edge", "image": webp])
        #expect(created.status == 202, "\(created.text)")
        let media = try #require((try created.json()["media"] as? [[String: Any]])?.first)
        #expect(media["action"] as? String == "optimized")
        let edgeURL = try #require(media["sent_url"] as? String)
        #expect(edgeURL.hasPrefix(publicURL + "/m/"))
        let id = try #require(try created.json()["campaign_id"] as? String)
        let done = try await CampaignHarness.waitFor(servers, id, timeout: 120)
        try await CampaignHarness.expectComplete(done, targets: 200, accepted: 200, mock: mock, tokens: tokens)
        // Every target got the edge's URL, whichever instance sent its chunk; both sent.
        #expect(try await Self.mediaURLs(mock) == [edgeURL: 200])
        #expect(try await mock.stats()["device_connections"] == .int(2))
        // The copy is in the shared store: the other instance serves it too.
        let path = String(edgeURL.dropFirst(publicURL.count))
        let served = try await servers[1].client().request("GET", path)
        #expect(served.status == 200 && served.headers["content-type"] == "image/jpeg")
        // Converted once: one optimised copy and one push_media row for the campaign's push.
        #expect(try await database.execute("SELECT count(*) FROM push_media WHERE push_id = 'camp-edge'") == ["1"])
        #expect(try await database.execute("SELECT count(*) FROM media_objects") == ["1"])
        for server in servers { #expect(await server.terminate() == 0) }
    }
}
