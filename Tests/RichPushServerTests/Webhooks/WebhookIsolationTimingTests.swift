import Foundation
import RichPushTestSupport
import Testing

/// A receiver that hangs delays only its own endpoint. The attack run: a hanging receiver on
/// the same host as a healthy one took 100 events to the healthy one from 1.7 s to 31.7 s (the
/// endpoints shared the dispatcher's connections, and the hanging one's requests held them all
/// for the delivery timeout). In scripts/test.sh's TIMING list: its assertion is a wall-clock
/// bound (20 s, against the 30 s the hanging requests are given).
@Suite("webhooks: a hanging endpoint delays only itself", .serialized)
struct WebhookIsolationTimingTests {
    @Test("a receiver path that hangs for 30 s: the other endpoint on the same host:port gets its 100 events meanwhile")
    func hangingNeighbour() async throws {
        let receiver = try await WebhookReceiverProcess(secret: WebhookDeliveryTests.secret, holdPath: "/hooks/slow")
        try Data().write(to: receiver.holdFile)
        defer { try? FileManager.default.removeItem(at: receiver.holdFile) }
        let server = try await ServerProcess(extraArguments: [
            "--webhook-url", receiver.url + "/slow", "--webhook-url", receiver.url, "--webhook-secret", WebhookDeliveryTests.secret,
            "--webhook-retry-min", "0.2", "--webhook-retry-max", "1", "--webhook-timeout", "30",
        ])
        try await WebhookDeliveryTests.record(server, push: "n", batch: "n", tokens: Array(0..<100), outcome: "token_inactive")
        try await receiver.wait("the hanging endpoint's requests held") { entries in
            entries.filter { $0["held"] as? Bool == true }.count >= 4
        }
        try await receiver.wait(seconds: 20, "the healthy endpoint's 100 events while the other hangs") { entries in
            let ids = entries.filter { $0["verified"] as? Bool == true && $0["path"] as? String == "/hooks" }.compactMap { $0["id"] as? String }
            return Set(ids).count == 100
        }
        #expect(try receiver.verified().allSatisfy { $0["path"] as? String == "/hooks" }, "nothing of the hanging path was answered yet")
        #expect(await server.terminate() == 0)
    }
}
