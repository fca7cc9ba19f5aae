import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Webhooks end to end: `richpush serve` children with `--webhook-url` and a local receiver that
/// verifies each signature with the Python snippet of docs/webhooks.md. Receiver down then up,
/// serve killed with pending events, two instances on one PostgreSQL database, a wrong secret,
/// a redirect, a receiver that holds its answer while receipts keep flowing.
@Suite("webhooks: delivery end to end", .serialized)
struct WebhookDeliveryTests {
    static let secret = "whsec-test-0123456789abcdef"

    /// The serve arguments for `receiver`, retrying fast (0.2 s doubling to 1 s).
    static func arguments(_ receiver: WebhookReceiverProcess, secret: String = secret, types: String = "") -> [String] {
        [
            "--webhook-url", (types.isEmpty ? "" : types + "=") + receiver.url, "--webhook-secret", secret, "--webhook-retry-min", "0.2",
            "--webhook-retry-max", "1", "--webhook-timeout", "5",
        ]
    }

    /// A 64-hex device token numbered `n`.
    static func token(_ n: Int) -> String {
        let hex = String(n, radix: 16)
        return String(repeating: "0", count: 64 - hex.count) + hex
    }

    /// Records a batch of sends (`POST /v1/pushes/{push}/sends`): `tokens` all with `outcome`.
    static func record(_ server: ServerProcess, push: String, batch: String, tokens: [Int], outcome: String) async throws {
        let results = tokens.map { n in
            outcome == "token_inactive"
                ? #"{"token":"\#(token(n))","outcome":"token_inactive","status":410,"reason":"Unregistered","inactive_since":1700000000000}"#
                : #"{"token":"\#(token(n))","outcome":"token_bad","status":400,"reason":"BadDeviceToken"}"#
        }
        let body = #"{"batch_id":"\#(batch)","source":"backend","results":[\#(results.joined(separator: ","))]}"#
        let r = try await server.client().postJSON("/v1/pushes/\(push)/sends", body, headers: server.admin)
        #expect(r.status == 200, "record \(batch): \(r.text)")
    }

    /// The value of the first `/metrics` sample named `name` (with any labels).
    static func metric(_ server: ServerProcess, _ name: String) async throws -> Double? {
        let text = try await server.client().request("GET", "/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + "{") || line.hasPrefix(name + " ") {
            return line.split(separator: " ").last.flatMap { Double($0) }
        }
        return nil
    }

    /// Polls `/metrics` until `name` reaches `value` (up to 60 s).
    static func waitForMetric(_ server: ServerProcess, _ name: String, _ check: (Double) -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < end {
            if let v = try await metric(server, name), check(v) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSupportError("\(name) never got there; last \(String(describing: try await metric(server, name)))")
    }

    /// The verified events per subject token, as the push ids they came with, in arrival order
    /// (a redelivery after a lost answer may repeat one: kept once, where it first came).
    static func perToken(_ entries: [[String: Any]]) -> [String: [String]] {
        var seen = Set<String>()
        var out: [String: [String]] = [:]
        for e in entries {
            guard let id = e["id"] as? String, seen.insert(id).inserted, let data = e["data"] as? [String: Any], let token = data["token"] as? String
            else { continue }
            out[token, default: []].append(data["push_id"] as? String ?? "")
        }
        return out
    }

    @Test("a receiver down for a while gets every event after, signed, in order per token; dashboard and /metrics show the backlog")
    func downThenUp() async throws {
        let receiver = try await WebhookReceiverProcess(secret: Self.secret)
        await receiver.stop()
        let server = try await ServerProcess(extraArguments: Self.arguments(receiver))
        // Three rounds over 8 tokens: inactive, bad, inactive again (24 events, 3 per token).
        for (round, outcome) in ["token_inactive", "token_bad", "token_inactive"].enumerated() {
            try await Self.record(server, push: "p\(round)", batch: "b\(round)", tokens: Array(0..<8), outcome: outcome)
        }
        try await Self.waitForMetric(server, "richpush_webhook_retrying") { $0 >= 1 }
        #expect(try await Self.metric(server, "richpush_webhook_pending") == 24)
        let page = try await server.client().request("GET", "/", headers: server.admin)
        #expect(page.text.contains("<h2>Webhooks</h2>"))
        #expect(page.text.contains("no answer"), "the last error is on the dashboard")
        try await receiver.start()
        try await receiver.wait("24 distinct verified events") { entries in
            Set(entries.filter { $0["verified"] as? Bool == true }.compactMap { $0["id"] as? String }).count == 24
        }
        let entries = try receiver.entries()
        #expect(entries.allSatisfy { $0["verified"] as? Bool == true }, "every request verifies with the documented snippet")
        let order = Self.perToken(entries)
        #expect(order.count == 8)
        for (token, pushes) in order { #expect(pushes == ["p0", "p1", "p2"], "token \(token)") }
        let types = Dictionary(grouping: entries.compactMap { $0["type"] as? String }, by: { $0 }).mapValues(\.count)
        #expect(Set(types.keys) == ["token.inactive", "token.bad"])
        #expect(entries.allSatisfy { ($0["id"] as? String) == ($0["header_id"] as? String) })
        // The tries while it was down never sent a request (connection refused): no attempt was
        // counted, so each event arrives as attempt 1.
        #expect(entries.allSatisfy { $0["attempt"] as? String == "1" }, "\(entries.compactMap { $0["attempt"] as? String })")
        try await Self.waitForMetric(server, "richpush_webhook_pending") { $0 == 0 }
        #expect(try await Self.metric(server, "richpush_webhook_delivered") == 24)
        #expect(await server.terminate() == 0)
    }

    @Test("POST /v1/pushes writes token.inactive for a 410 and push.sent with the counts")
    func pushSent() async throws {
        let inactive = MockAPNsProcess.token("dead"), fine = MockAPNsProcess.token("a11")
        let mock = try await MockAPNsProcess(script: [inactive: [["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000]]])
        defer { mock.stop() }
        let receiver = try await WebhookReceiverProcess(secret: Self.secret)
        let server = try await ServerProcess(extraArguments: mock.serveArguments() + Self.arguments(receiver))
        let r = try await server.client().postJSON(
            "/v1/pushes", #"{"push_id":"launch-1","tokens":["\#(inactive)","\#(fine)"],"title":"Hi","body":"there"}"#, headers: server.admin)
        #expect(r.status == 200, "\(r.text)")
        try await receiver.wait("two events") { $0.count >= 2 }
        let entries = try receiver.verified()
        let byType = Dictionary(entries.map { ($0["type"] as? String ?? "", $0["data"] as? [String: Any] ?? [:]) }, uniquingKeysWith: { a, _ in a })
        let token = try #require(byType["token.inactive"])
        #expect(token["token"] as? String == inactive)
        #expect(token["provider"] as? String == "apns")
        #expect(token["status"] as? Int == 410)
        #expect(token["reason"] as? String == "Unregistered")
        #expect(token["push_id"] as? String == "launch-1")
        let sent = try #require(byType["push.sent"])
        #expect(sent["push_id"] as? String == "launch-1")
        #expect(sent["sent"] as? Int == 2)
        #expect(sent["accepted"] as? Int == 1)
        #expect(sent["title"] as? String == "Hi")
        #expect(await server.terminate() == 0)
    }

    @Test("a receiver down past the give-up time: the events are given up and counted failed, later ones still arrive")
    func givenUp() async throws {
        let receiver = try await WebhookReceiverProcess(secret: Self.secret)
        await receiver.stop()
        // 0.0005 h = 1.8 s.
        let server = try await ServerProcess(extraArguments: Self.arguments(receiver) + ["--webhook-give-up-hours", "0.0005"])
        try await Self.record(server, push: "g0", batch: "g0", tokens: [1, 2, 3], outcome: "token_inactive")
        try await Self.waitForMetric(server, "richpush_webhook_failed") { $0 == 3 }
        #expect(try await Self.metric(server, "richpush_webhook_pending") == 0)
        let page = try await server.client().request("GET", "/", headers: server.admin)
        #expect(page.text.contains("given up after"), "the dashboard's last error says why")
        try await receiver.start()
        try await Self.record(server, push: "g1", batch: "g1", tokens: [1], outcome: "token_bad")
        try await receiver.wait("the later event") { $0.contains { $0["verified"] as? Bool == true } }
        #expect(try receiver.verified().compactMap { ($0["data"] as? [String: Any])?["push_id"] as? String } == ["g1"])
        #expect(await server.terminate() == 0)
    }

    @Test("serve killed -9 with pending events: the restarted serve delivers them")
    func killedWithPendingEvents() async throws {
        let receiver = try await WebhookReceiverProcess(secret: Self.secret)
        await receiver.stop()
        let arguments = Self.arguments(receiver)
        let first = try await ServerProcess(extraArguments: arguments)
        try await Self.record(first, push: "k0", batch: "k0", tokens: Array(0..<5), outcome: "token_inactive")
        try await Self.record(first, push: "k1", batch: "k1", tokens: Array(0..<5), outcome: "token_bad")
        try await Self.waitForMetric(first, "richpush_webhook_retrying") { $0 >= 1 }
        try await first.kill9()
        try await receiver.start()
        let second = try await ServerProcess(database: first.database, extraArguments: arguments)
        try await receiver.wait("10 distinct verified events") { entries in
            Set(entries.filter { $0["verified"] as? Bool == true }.compactMap { $0["id"] as? String }).count == 10
        }
        for (token, pushes) in Self.perToken(try receiver.verified()) { #expect(pushes == ["k0", "k1"], "token \(token)") }
        #expect(await second.terminate() == 0)
    }

    @Test("two instances on one PostgreSQL database: each event delivered once, in order per token")
    func twoInstances() async throws {
        let fixture = try await StoreFixture.make(.postgres)
        let receiver = try await WebhookReceiverProcess(secret: Self.secret)
        let arguments = Self.arguments(receiver)
        let a = try await ServerProcess(dbArgument: fixture.dbArgument, extraArguments: arguments)
        let b = try await ServerProcess(dbArgument: fixture.dbArgument, extraArguments: arguments)
        // Five rounds over 10 tokens, written alternately through each instance.
        for round in 0..<5 {
            try await Self.record(
                round % 2 == 0 ? a : b, push: "r\(round)", batch: "r\(round)", tokens: Array(0..<10), outcome: round % 2 == 0 ? "token_inactive" : "token_bad")
        }
        try await receiver.wait("50 events") { $0.count >= 50 }
        try await Task.sleep(for: .milliseconds(500))
        let entries = try receiver.entries()
        #expect(entries.count == 50, "each event exactly once")
        #expect(entries.allSatisfy { $0["verified"] as? Bool == true })
        #expect(Set(entries.compactMap { $0["id"] as? String }).count == 50)
        for (token, pushes) in Self.perToken(entries) { #expect(pushes == ["r0", "r1", "r2", "r3", "r4"], "token \(token)") }
        let delivered = (try await Self.metric(a, "richpush_webhook_attempts_total") ?? 0) + (try await Self.metric(b, "richpush_webhook_attempts_total") ?? 0)
        #expect(delivered == 50, "attempts by both instances add up to one per event")
        #expect(await a.terminate() == 0)
        #expect(await b.terminate() == 0)
    }

    @Test("signed with another secret: the receiver's documented check refuses every request, the events stay pending with the 401")
    func wrongSecret() async throws {
        let receiver = try await WebhookReceiverProcess(secret: Self.secret)
        let server = try await ServerProcess(extraArguments: Self.arguments(receiver, secret: "not-the-receivers-secret-0000"))
        try await Self.record(server, push: "w", batch: "w", tokens: [1, 2], outcome: "token_inactive")
        try await receiver.wait("two refused requests") { $0.count >= 2 }
        let entries = try receiver.entries()
        #expect(entries.allSatisfy { $0["verified"] as? Bool == false && $0["status"] as? Int == 401 })
        try await Self.waitForMetric(server, "richpush_webhook_retrying") { $0 == 2 }
        #expect(try await Self.metric(server, "richpush_webhook_delivered") == 0)
        let page = try await server.client().request("GET", "/", headers: server.admin)
        #expect(page.text.contains("HTTP 401: signature does not verify"))
        #expect(await server.terminate() == 0)
    }

    @Test("a redirect is not followed: the delivery fails naming it, the other URL is never called")
    func redirectNotFollowed() async throws {
        let receiver = try await WebhookReceiverProcess(secret: Self.secret, status: 302)
        let server = try await ServerProcess(extraArguments: Self.arguments(receiver))
        try await Self.record(server, push: "x", batch: "x", tokens: [1], outcome: "token_bad")
        try await receiver.wait("two attempts") { $0.count >= 2 }
        #expect(try receiver.entries().allSatisfy { $0["elsewhere"] == nil })
        let page = try await server.client().request("GET", "/", headers: server.admin)
        #expect(page.text.contains("redirect to /elsewhere not followed"))
        #expect(await server.terminate() == 0)
    }

    @Test("a receiver holding its answers never holds receipts nor other subjects; the events are delivered once it answers")
    func slowReceiver() async throws {
        let receiver = try await WebhookReceiverProcess(secret: Self.secret)
        try Data().write(to: receiver.holdFile)
        let server = try await ServerProcess(extraArguments: Self.arguments(receiver, types: "token.inactive"))
        try await Self.record(server, push: "h", batch: "h", tokens: [4, 5, 6, 7], outcome: "token_inactive")
        // Four subjects: four deliveries in flight at once (one connection each), none waiting for another.
        try await receiver.wait("four held requests") { $0.filter { $0["held"] as? Bool == true }.count >= 4 }
        let client = server.client()
        for n in 0..<20 {
            #expect(try await client.post("/v1/receipts", form: "push_id=h&receipt_id=r\(n)").status == 202)
        }
        try FileManager.default.removeItem(at: receiver.holdFile)
        try await receiver.wait("the events") { Set($0.filter { $0["verified"] as? Bool == true }.compactMap { $0["id"] as? String }).count == 4 }
        // Four events (a delivery that outlived the 5 s timeout is sent again: same id).
        #expect(Set(try receiver.verified().compactMap { $0["id"] as? String }).count == 4)
        #expect(try receiver.verified().allSatisfy { $0["type"] as? String == "token.inactive" })
        #expect(await server.terminate() == 0)
    }
}
