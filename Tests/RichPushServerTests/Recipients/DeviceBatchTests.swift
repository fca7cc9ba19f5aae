import Foundation
import RichPushCore
import RichPushExtension
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `POST /v1/devices/batch` (issue 29 item 7), on both stores: 50,000 devices in 5 requests;
/// idempotent per token (the same devices again: `created: false`, the same credentials); every
/// item answered in order, invalid ones with their error, the valid ones registered; the bounds.
@Suite("devices: batch registration", .serialized)
struct DeviceBatchTests {
    @Test("50,000 devices in 5 requests, then the same again: one row each, the same device ids", arguments: StoreBackend.allCases)
    func fiftyThousand(_ backend: StoreBackend) async throws {
        let harness = try await RecipientHarness.make(backend)
        let tokens = CampaignHarness.tokens(50_000, prefix: "5b")
        var first: [RecipientHarness.Device] = []
        for start in stride(from: 0, to: tokens.count, by: 10_000) {
            let items = tokens[start..<(start + 10_000)].map { ["token": $0, "platform": "ios", "tags": ["batch"]] }
            let r = try await harness.server.client().postJSON(
                "/v1/devices/batch", try CampaignHarness.json(["devices": items]), headers: harness.server.admin)
            #expect(r.status == 200)
            let body = try r.json()
            #expect(body["registered"] as? Int == 10_000)
            let results = body["results"] as? [[String: Any]] ?? []
            #expect(results.allSatisfy { $0["status"] as? Int == 201 && $0["created"] as? Bool == true })
            #expect(results.enumerated().allSatisfy { $0.element["index"] as? Int == $0.offset })
            first += results.map {
                .init(
                    token: $0["token"] as? String ?? "", userID: nil, deviceID: $0["device_id"] as? String ?? "", secret: $0["device_secret"] as? String ?? "")
            }
        }
        #expect(Set(first.map(\.deviceID)).count == 50_000)
        // Again: registered again, nothing new, the credentials kept.
        let again = try await harness.register(Array(tokens.prefix(5_000)), users: false)
        #expect(again.map(\.deviceID) == first.prefix(5_000).map(\.deviceID))
        #expect(again.map(\.secret) == first.prefix(5_000).map(\.secret))
        let store = try await harness.fixture.open()
        let counted = try await store.run { store -> Int in
            let campaigns = try store.campaignStore()
            var draft = CampaignStoreTests.draft("batch-tags", audience: .tagsAny(["batch"]), chunkSize: 500)
            draft.createdAtMs = Int(Date().timeIntervalSince1970 * 1000)
            draft.sendAtMs = draft.createdAtMs + 3_600_000
            return try campaigns.createCampaign(draft).campaign.targets
        }
        #expect(counted == 50_000, "every device registered once, with its tags")
        try await store.close()
        try await harness.server.shutdown()
    }

    @Test("each item answered in order: invalid ones with their error, duplicates idempotent, the bounds; admin only", arguments: StoreBackend.allCases)
    func itemsAndBounds(_ backend: StoreBackend) async throws {
        let harness = try await RecipientHarness.make(backend)
        let client = harness.server.client(), admin = harness.server.admin
        let token = CampaignHarness.tokens(1, prefix: "ba")[0]
        let items: [[String: Any]] = [
            ["token": token, "platform": "ios", "user_id": "u-1"],
            ["token": "not hex", "platform": "ios", "provider": "apns"],
            ["token": token, "platform": "ios", "app_version": "2.0"],
            ["platform": "ios"],
            ["token": CampaignHarness.tokens(1, prefix: "bb")[0], "platform": "ios", "user_hash": String(repeating: "0", count: 64), "user_id": "x"],
            ["token": CampaignHarness.tokens(1, prefix: "bc")[0], "platform": "bogus"],
        ]
        let r = try await client.postJSON("/v1/devices/batch", try CampaignHarness.json(["devices": items]), headers: admin)
        #expect(r.status == 200, "\(r.text)")
        let body = try r.json()
        #expect(body["registered"] as? Int == 2)
        #expect(body["failed"] as? Int == 4)
        let results = body["results"] as? [[String: Any]] ?? []
        #expect(results.map { $0["status"] as? Int ?? 0 } == [201, 400, 200, 400, 400, 400])
        #expect(results[0]["device_id"] as? String == results[2]["device_id"] as? String, "the same token: one device")
        #expect((results[1]["error"] as? [String: Any])?["field"] as? String == "token")
        #expect((results[3]["error"] as? [String: Any])?["field"] as? String == "token")
        #expect((results[4]["error"] as? [String: Any])?["field"] as? String == "user_hash")
        #expect((results[5]["error"] as? [String: Any])?["field"] as? String == "platform")
        // The last values of a token given twice are stored.
        let store = try await harness.fixture.open()
        #expect(try await store.run { try $0.device(token)?.appVersion } == "2.0")
        try await store.close()
        // Over 10,000: 413, nothing stored; without the admin token: 401; not JSON: 400.
        let tooMany = (0...10_000).map { ["token": CampaignHarness.tokens(1, prefix: String(format: "%04x", $0))[0], "platform": "ios"] }
        let over = try await client.postJSON("/v1/devices/batch", try CampaignHarness.json(["devices": tooMany]), headers: admin)
        #expect(over.status == 413, "\(over.text.prefix(200))")
        #expect(try await client.postJSON("/v1/devices/batch", try CampaignHarness.json(["devices": items])).status == 401)
        #expect(try await client.postJSON("/v1/devices/batch", "[1,2]", headers: admin).status == 400)
        #expect(try await client.postJSON("/v1/devices/batch", #"{"devices": []}"#, headers: admin).status == 400)
        try await harness.server.shutdown()
    }

    @Test("two PostgreSQL instances: devices registered on one, receipts posted to the other, recipients from either")
    func twoInstances() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let servers = try await MultiInstanceTests.startInstances(2, url: database.url)
        let tokens = CampaignHarness.tokens(200, prefix: "2b")
        let items = tokens.enumerated().map { ["token": $1, "platform": "ios", "user_id": "u\($0)", "recipient_receipts": true] as [String: Any] }
        let r = try await servers[0].client().postJSON("/v1/devices/batch", try CampaignHarness.json(["devices": items]), headers: servers[0].admin)
        #expect(r.status == 200)
        let results = try r.json()["results"] as? [[String: Any]] ?? []
        let references = results.map {
            RichPushReceiptDeviceReference(deviceID: $0["device_id"] as? String ?? "", secret: $0["device_secret"] as? String ?? "")
        }
        let send = try CampaignHarness.json(["batch_id": "b", "source": "apns", "results": tokens.map { ["token": $0, "outcome": "accepted"] }])
        #expect(try await servers[1].client().postJSON("/v1/pushes/two/sends", send, headers: servers[1].admin).status == 200)
        for reference in references.prefix(120) {
            let receipt = reference.stamp(RichPushReceipt(pushID: "two", event: .delivered, receiptID: UUID().uuidString))
            #expect(try await servers[1].client().post("/v1/receipts", form: receipt.formEncoded()).status == 202)
        }
        for server in servers {
            let delivered = try await server.client().request("GET", "/v1/pushes/two/recipients?state=delivered&limit=1000", headers: server.admin).json()
            #expect(
                Set((delivered["recipients"] as? [[String: Any]] ?? []).compactMap { $0["device_id"] as? String })
                    == Set(references.prefix(120).map(\.deviceID)))
            let missing = try await server.client().request("GET", "/v1/pushes/two/recipients?state=not_delivered&limit=1000", headers: server.admin).json()
            #expect((missing["recipients"] as? [Any])?.count == 80)
        }
        for server in servers { #expect(await server.terminate() == 0) }
    }
}
