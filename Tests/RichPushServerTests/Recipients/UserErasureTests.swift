import Foundation
import RichPushCore
import RichPushExtension
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// A user's history and erasure (issue 29 item 5), on both stores: `GET /v1/users/{id}/pushes`
/// lists what reached the user's devices and when they showed and opened it; `DELETE
/// /v1/users/{id}` leaves no row in any table that names the user, their tokens or their device
/// ids — while the pushes' figures stay as they were.
@Suite("who saw it: a user's history and erasure", .serialized)
struct UserErasureTests {
    /// Every row of every table, as text (SQLite: Python's sqlite3 over the file; PostgreSQL:
    /// each row cast to text).
    static func everyRow(_ fixture: StoreFixture) async throws -> [String] {
        switch fixture.backend {
        case .sqlite:
            let script = """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                    for row in db.execute('SELECT * FROM "%s"' % name):
                        print(name, repr(row))
                """
            let run = try await ChildProcess("python3", ["-c", script, fixture.dbArgument]).run(timeout: 60)
            guard run.status == 0 else { throw TestSupportError(run.stderr) }
            return run.stdout.split(separator: "\n").map(String.init)
        case .postgres:
            let database = try #require(fixture.database)
            var rows: [String] = []
            for table in try await database.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()") {
                guard let table else { continue }
                rows += try await database.execute("SELECT '\(table) ' || t::text FROM \"\(table)\" t").compactMap { $0 }
            }
            return rows
        }
    }

    @Test("history, then erasure: no row names the user, their tokens or device ids; the figures stay", arguments: StoreBackend.allCases)
    func eraseEverything(_ backend: StoreBackend) async throws {
        let mock = try await MockAPNsProcess(script: [
            CampaignHarness.tokens(1, prefix: "e7")[0]: [["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000]]
        ])
        defer { mock.stop() }
        let receiver = try await WebhookReceiverProcess(secret: WebhookDeliveryTests.secret)
        await receiver.stop()
        let harness = try await RecipientHarness.make(backend) { configuration in
            configuration.apns = APNsSettings(
                keyFile: mock.keyFile.path, keyID: MockAPNsProcess.keyID, teamID: MockAPNsProcess.teamID, topic: MockAPNsProcess.topic,
                environment: .custom("https://127.0.0.1:\(mock.port)"), caFile: mock.caFile.path)
            configuration.webhooks = WebhookSettings(endpoints: [WebhookEndpoint(url: receiver.url, secret: Data(WebhookDeliveryTests.secret.utf8))])
        }
        let server = harness.server, client = server.client()
        // Alice: two devices (one of them inactive at APNs); Bob: one.
        let alice = ["e7", "e8"].map { CampaignHarness.tokens(1, prefix: $0)[0] }
        let bob = CampaignHarness.tokens(1, prefix: "e9")[0]
        var devices: [RecipientHarness.Device] = []
        for (token, user) in [(alice[0], "alice@example.com"), (alice[1], "alice@example.com"), (bob, "bob")] {
            let r = try await client.postJSON(
                "/v1/devices", try CampaignHarness.json(["token": token, "platform": "ios", "user_id": user, "recipient_receipts": true, "tags": ["vip"]]),
                headers: server.admin)
            #expect(r.status == 201, "\(r.text)")
            let body = try r.json()
            devices.append(
                .init(token: token, userID: user, deviceID: body["device_id"] as? String ?? "", secret: body["device_secret"] as? String ?? ""))
        }
        // A push to the users (one token inactive: a token.inactive event waits in the outbox,
        // the receiver is down), a campaign to the tag, receipts and a conversion.
        let sent = try await client.postJSON(
            "/v1/pushes", try CampaignHarness.json(["push_id": "hist-1", "user_ids": ["alice@example.com", "bob"], "title": "Hello"]),
            headers: server.admin.merging(["Idempotency-Key": "erase-key-0001"]) { $1 })
        #expect(sent.status == 200, "\(sent.text)")
        let campaign = try await client.postJSON(
            "/v1/campaigns", try CampaignHarness.json(["audience": ["tags": ["any": ["vip"]]], "push_id": "hist-2", "title": "VIP"]), headers: server.admin)
        #expect(campaign.status == 202, "\(campaign.text)")
        let campaignID = try #require(try campaign.json()["campaign_id"] as? String)
        let end = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < end {
            if try await client.request("GET", "/v1/campaigns/\(campaignID)", headers: server.admin).json()["state"] as? String == "finished" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        for device in devices.suffix(2) {
            #expect(try await harness.receipt("hist-1", device: device) == 202)
            #expect(try await harness.receipt("hist-1", event: .opened, device: device) == 202)
        }
        let conversion = try await client.postJSON(
            "/v1/conversions", try CampaignHarness.json(["push_id": "hist-1", "user_id": "alice@example.com", "value": 19.99]), headers: server.admin)
        #expect(conversion.status == 201, "\(conversion.text)")

        // Alice's history: hist-1 and hist-2 on her accepted device, hist-1 shown and opened there.
        let history = try await client.request("GET", "/v1/users/alice@example.com/pushes", headers: server.admin).json()
        let rows = history["pushes"] as? [[String: Any]] ?? []
        #expect(Set(rows.compactMap { $0["push_id"] as? String }) == ["hist-1", "hist-2"])
        let shown = try #require(rows.first { $0["push_id"] as? String == "hist-1" && $0["device_id"] as? String == devices[1].deviceID })
        #expect(shown["delivered_at"] is String && shown["opened_at"] is String)
        #expect(shown["outcome"] as? String == "accepted")
        #expect(try await harness.pages("hist-1", "delivered", limit: 10).rows.compactMap { $0["user_id"] as? String }.contains("alice@example.com"))

        let before = try await server.push("hist-1")
        let rowsBefore = try await Self.everyRow(harness.fixture)
        #expect(rowsBefore.contains { $0.contains("alice@example.com") }, "the user is in the store before")
        let erased = try await client.request("DELETE", "/v1/users/alice@example.com", headers: server.admin)
        #expect(erased.status == 200, "\(erased.text)")
        let counts = try #require(try erased.json()["erased"] as? [String: Any])
        #expect(counts["devices"] as? Int == 2)
        #expect((counts["receipts"] as? Int ?? 0) == 2)
        #expect(counts["conversions"] as? Int == 1)
        // No row anywhere names her, her tokens or her devices.
        let needles = ["alice@example.com"] + alice + devices.prefix(2).map(\.deviceID) + devices.prefix(2).map(\.secret)
        for row in try await Self.everyRow(harness.fixture) {
            for needle in needles { #expect(!row.contains(needle), "\(needle) is still in: \(row.prefix(300))") }
        }
        // Bob is untouched; the push's figures are as before (anonymous now for her).
        #expect(try await client.request("GET", "/v1/users/bob/pushes", headers: server.admin).json()["pushes"] as? [Any] != nil)
        #expect(try await harness.pages("hist-1", "delivered", limit: 10).ids == [devices[2].deviceID])
        let after = try await server.push("hist-1")
        #expect(after["delivered"] as? Int == before["delivered"] as? Int)
        #expect(after["opened"] as? Int == before["opened"] as? Int)
        #expect(after["sent"] as? Int == before["sent"] as? Int)
        // Erasing again: nothing left.
        let again = try await client.request("DELETE", "/v1/users/alice@example.com", headers: server.admin)
        #expect(try (again.json()["erased"] as? [String: Any])?["devices"] as? Int == 0)
        try await server.shutdown()
    }

    @Test("conversions: attributed to the latest send inside the window, once per conversion_id; outside or unsent is 422", arguments: StoreBackend.allCases)
    func conversions(_ backend: StoreBackend) async throws {
        let harness = try await RecipientHarness.make(backend)
        let client = harness.server.client(), admin = harness.server.admin
        let tokens = CampaignHarness.tokens(2, prefix: "c0")
        let devices = try await harness.register(tokens)
        try await harness.recordSend("conv-1", tokens)
        func post(_ body: [String: Any]) async throws -> HTTPTestClient.Response {
            try await client.postJSON("/v1/conversions", try CampaignHarness.json(body), headers: admin)
        }
        let first = try await post(["push_id": "conv-1", "user_id": "u0", "value": 10, "conversion_id": "o-1"])
        #expect(first.status == 201, "\(first.text)")
        #expect(try first.json()["push_id"] as? String == "conv-1")
        #expect(try await post(["push_id": "conv-1", "user_id": "u0", "value": 10, "conversion_id": "o-1"]).status == 200)
        #expect(try await post(["push_id": "conv-1", "device_id": devices[1].deviceID, "value": 5.5]).status == 201)
        // Nobody sent it to: 422; before the send, or two days after: 422.
        let unsent = try await post(["push_id": "conv-1", "user_id": "nobody"])
        #expect(unsent.status == 422)
        #expect(try (unsent.json()["error"] as? [String: Any])?["code"] as? String == "not_attributed")
        let late = ISO8601DateFormatter().string(from: Date().addingTimeInterval(2 * 86_400))
        #expect(try await post(["push_id": "conv-1", "user_id": "u0", "occurred_at": late]).status == 422)
        let early = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-3_600))
        #expect(try await post(["push_id": "conv-1", "user_id": "u0", "occurred_at": early]).status == 422)
        #expect(try await post(["push_id": "conv-1", "campaign_id": "abc", "user_id": "u0"]).status == 400)
        #expect(try await post(["push_id": "conv-1"]).status == 400)
        let store = try await harness.fixture.open()
        let totals = try await store.run { try $0.recipientStore().conversionTotals(pushIDs: ["conv-1"]) }
        #expect(totals["conv-1"] == ConversionTotals(converted: 2, conversions: 2, value: 15.5))
        try await store.close()
        try await harness.server.shutdown()
    }

    @Test("retention: receipts and conversions older than the setting lose their device and user; the counts stay", arguments: StoreBackend.allCases)
    func retention(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        try await store.run { store in
            _ = try store.insert([
                StoredReceipt(
                    receipt: RichPushReceipt(pushID: "old", receiptID: "a"), userAgent: nil, receivedAtMs: 1_000,
                    deviceID: "dev_" + String(repeating: "a", count: 32)),
                StoredReceipt(
                    receipt: RichPushReceipt(pushID: "old", receiptID: "b"), userAgent: nil, receivedAtMs: 9_000,
                    deviceID: "dev_" + String(repeating: "b", count: 32)),
            ])
            let recipients = try store.recipientStore()
            _ = try recipients.recordConversion(
                Conversion(
                    pushID: "old", conversionID: "c", campaignID: nil, variant: nil, deviceID: nil, userID: "u", value: nil, occurredAtMs: 1,
                    recordedAtMs: 1_000))
            #expect(try recipients.clearRecipientReferences(before: 5_000, limit: 10) == 2)
            #expect(try recipients.clearRecipientReferences(before: 5_000, limit: 10) == 0)
            let left = try recipients.recipients(RecipientQuery(pushID: "old", state: .delivered))
            #expect(left.recipients.map(\.deviceID) == ["dev_" + String(repeating: "b", count: 32)])
            #expect(try store.push("old")?.delivered == 2)
        }
        try await store.close()
    }
}
