import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Each webhook endpoint delivers on its own (issue 28, moved to issue 29): a receiver that hangs
/// delays only its own deliveries, even on the same host and port as a healthy one; a try whose
/// request never left is no attempt; error texts carry the endpoint's redacted URL (no user,
/// password or query).
///
/// In `scripts/test.sh`'s TIMING list: the healthy endpoint's 100 events must arrive before the
/// hanging endpoint's first requests reach their 30 s timeout.
@Suite("webhooks: one endpoint's hang delays only itself", .serialized)
struct WebhookIsolationTests {
    @Test("100 events to a healthy endpoint arrive while another endpoint on the same host hangs; the dashboard's errors are redacted")
    func hangingNeighbour() async throws {
        let receiver = try await WebhookReceiverProcess(secret: WebhookDeliveryTests.secret, hangPath: "/hang")
        let refused = try PortReservation()
        let secret = WebhookDeliveryTests.secret
        let hanging = "http://127.0.0.1:\(receiver.port)/hang"
        // A receiver that refuses connections, named with credentials in the URL: they must not show.
        let closed = "http://alice:s3cr3t-pw@127.0.0.1:\(refused.port)/in?key=query-secret"
        let server = try await ServerProcess(extraArguments: [
            "--webhook-url", hanging, "--webhook-url", receiver.url, "--webhook-url", closed, "--webhook-secret", secret,
            "--webhook-timeout", "30", "--webhook-retry-min", "0.2", "--webhook-retry-max", "1",
        ])
        let start = ContinuousClock.now
        // 100 token.inactive events, written once per endpoint.
        for batch in 0..<4 {
            try await WebhookDeliveryTests.record(
                server, push: "iso\(batch)", batch: "iso\(batch)", tokens: Array((batch * 25)..<(batch * 25 + 25)), outcome: "token_inactive")
        }
        try await receiver.wait(seconds: 120, "the hanging endpoint's first requests") { $0.contains { $0["hung"] as? Bool == true } }
        try await receiver.wait(seconds: 120, "100 events at the healthy endpoint") { entries in
            Set(entries.filter { $0["verified"] as? Bool == true }.compactMap { $0["id"] as? String }).count == 100
        }
        let elapsed = ContinuousClock.now - start
        // Every healthy delivery came while the hanging endpoint's requests were still open (its
        // first ones end at their 30 s timeout, not before).
        #expect(elapsed < .seconds(30), "the healthy endpoint took \(elapsed)")
        let page = try await server.client().request("GET", "/", headers: server.admin).text
        // The refused endpoint's error is on the dashboard, with its redacted URL only.
        try await eventually {
            try await server.client().request("GET", "/", headers: server.admin).text.contains("no answer: POST http://127.0.0.1:\(refused.port)/in")
        }
        let later = try await server.client().request("GET", "/", headers: server.admin).text
        for secretPart in ["alice", "s3cr3t-pw", "query-secret"] {
            #expect(!page.contains(secretPart) && !later.contains(secretPart), "the dashboard shows \(secretPart)")
            #expect(!(try await server.client().request("GET", "/metrics").text.contains(secretPart)), "/metrics shows \(secretPart)")
        }
        #expect(await server.terminate() == 0)
    }

    /// Polls `condition` every 100 ms for up to 60 s.
    func eventually(_ condition: () async throws -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < end {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSupportError("not within 60 s")
    }
}
