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
        // What an operator sees: /metrics counts the GOAWAYs and the resent requests, and serve's
        // log names each GOAWAY with the JSON reason APNs puts in its debug data.
        let metrics = try await server.client().request("GET", "/metrics").text
        let goaways = Self.counter(metrics, #"richpush_provider_connection_events_total{provider="apns",event="goaway"}"#)
        #expect(goaways == stats["goaways_sent"]?.intValue, "\(metrics)")
        let resent = try #require(Self.counter(metrics, #"richpush_provider_connection_events_total{provider="apns",event="resent"}"#))
        #expect(resent >= (stats["goaway_refused"]?.intValue ?? 1), "\(metrics)")
        #expect(Self.counter(metrics, #"richpush_provider_connection_events_total{provider="apns",event="unknown"}"#) == 0)
        let log = server.child.standardError
        let line = log.split(separator: "\n").first { $0.hasPrefix("richpush serve: APNs: GOAWAY from ") }
        #expect(line?.contains(":\(mock.port): NO_ERROR last-stream-id ") == true, "\(log.suffix(2_000))")
        #expect(line?.hasSuffix(#" {"reason":"Shutdown"}"#) == true, "\(log.suffix(2_000))")
    }

    /// The value of the Prometheus series `name` (the whole line up to the value), `nil` without one.
    static func counter(_ metrics: String, _ name: String) -> Int? {
        metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.dropFirst(name.count + 1)) }
    }
}
