import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// A campaign through an APNs that ends its connections with GOAWAY every few hundred requests
/// (issue 27 item 5): `benchmarks/mock-apns --goaway-after 250 --goaway-keep 5`, the streams above
/// each last-stream-id never processed. Every token reaches it exactly once, with the campaign's
/// collapse id.
@Suite("campaigns through GOAWAYs", .serialized)
struct CampaignGoawayTests {
    @Test("3,000 tokens over 2 connections, a GOAWAY every 250 answers: every token processed once, all accepted")
    func campaignThroughGoaways() async throws {
        let mock = try await CMockAPNs(options: ["--delay-ms", "10", "--goaway-after", "250", "--goaway-keep", "5"])
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments() + ["--apns-connections", "2"])
        let tokens = CampaignHarness.tokens(3_000, prefix: "9a")
        let id = try await CampaignHarness.createID(server, ["audience": ["tokens": tokens], "push_id": "camp-goaway", "title": "GOAWAY"])
        let done = try await CampaignHarness.waitFor([server], id, timeout: 120)
        #expect(done["state"] as? String == "finished")
        #expect(done["accepted"] as? Int == 3_000, "\(done)")
        #expect(done["failed"] as? Int == 0, "\(done)")
        let stats = try await mock.stats()
        #expect(CMockAPNs.notOnce(tokens, stats).isEmpty, "\(CMockAPNs.notOnce(tokens, stats).count) tokens processed other than once")
        #expect((stats["goaways_sent"]?.intValue ?? 0) >= 10, "\(stats["goaways_sent"] ?? .null)")
        #expect((stats["goaway_refused"]?.intValue ?? 0) > 0, "no stream above a last-stream-id: the test shows nothing")
        #expect(stats["collapse_ids"]?["campaign-\(id)"] == .int(3_000), "\(stats["collapse_ids"] ?? .null)")
    }
}
