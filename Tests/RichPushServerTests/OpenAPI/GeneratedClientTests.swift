import Foundation
import RichPushTestSupport
import Testing

/// docs/api.md's Python client, as written (issue 29, item 8): the real openapi-python-client
/// generates the package from openapi.yaml with the guide's command, the guide's example sends a
/// push and a tags campaign through it against a real `richpush serve` (mock APNs), and every
/// campaign audience kind survives generation (a model of its own, read by
/// `CampaignRequest.from_dict`, accepted by the server).
@Suite("the generated Python client (openapi-python-client) runs docs/api.md's example", .serialized)
struct GeneratedClientTests {
    @Test("the guide's command and example work; each of the four audiences is a model and creates its campaign")
    func guideExampleRuns() async throws {
        let device = MockAPNsProcess.token("d0c")
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let work = try Fixtures.temporaryDirectory("python-client")
        defer { try? FileManager.default.removeItem(at: work) }
        let run = try await ChildProcess(
            "python3",
            [
                Fixtures.supportDirectory.appendingPathComponent("api_doc_client.py").path,
                "--docs", Fixtures.packageRoot.appendingPathComponent("docs/api.md").path,
                "--openapi", Fixtures.packageRoot.appendingPathComponent("openapi.yaml").path,
                "--server", server.origin, "--token", ServerProcess.token, "--device-token", device,
                "--workdir", work.path,
            ]
        ).run(timeout: 300)
        try #require(run.status == 0, "api_doc_client.py failed: \(run.stderr)")
        let line = try #require(run.stdout.split(separator: "\n").last)
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])

        // The guide's push went out through the generated client and was parsed as its model.
        #expect(seen["result_type"] as? String == "PushSendResponse")
        #expect(seen["sent"] as? Int == 1)
        #expect(seen["accepted"] as? Int == 1)
        // The guide's tags campaign was created and its answer parsed as a Campaign.
        #expect(seen["campaign_type"] as? String == "Campaign")
        #expect(seen["campaign_audience"] as? String == "tags")
        let campaignID = try #require(seen["campaign_id"] as? String)
        #expect(seen["printed"] as? String == "1 \(campaignID)")
        #expect(seen["device_type"] as? String == "DeviceRegistration")
        // No schema was dropped by the generator.
        #expect((seen["generator_warnings"] as? [String])?.isEmpty == true, "\(seen["generator_warnings"] ?? "")")

        // Each audience kind: its own model, the same JSON back, a campaign of that kind.
        #expect(seen["audience_models"] as? [String] == ["AudienceAll", "AudienceAllPlatform", "AudienceTags", "AudienceTokens", "AudienceUserIDs"])
        let roundTrips = try #require(seen["round_trips"] as? [String: [String: Any]])
        let created = try #require(seen["created"] as? [String: [String: Any]])
        let models = ["tokens": "AudienceTokens", "user_ids": "AudienceUserIDs", "all": "AudienceAll", "tags": "AudienceTags"]
        for (kind, model) in models {
            #expect(roundTrips[kind]?["model"] as? String == model, "\(kind): \(roundTrips[kind] ?? [:])")
            #expect(roundTrips[kind]?["same"] as? Bool == true, "\(kind)")
            #expect(created[kind]?["type"] as? String == "Campaign", "\(kind): \(created[kind] ?? [:])")
            #expect(created[kind]?["audience"] as? String == kind)
            // The server has that campaign, of that kind.
            let id = try #require(created[kind]?["campaign_id"] as? String)
            let stored = try await server.client().request("GET", "/v1/campaigns/\(id)", headers: server.admin)
            #expect(stored.status == 200)
            let object = try #require(try JSONSerialization.jsonObject(with: stored.body) as? [String: Any])
            #expect(object["audience"] as? String == kind)
            #expect(object["targets"] as? Int == 1, "\(kind): \(object)")
        }
        #expect(await server.terminate() == 0)
    }
}
