import Foundation
@_spi(RichPushInternal) import RichPushCore
@_spi(RichPushInternal) import RichPushExtension
import RichPushProvider
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Who saw it (issue 29 item 5), on both stores: per-device receipts (opt-in) name their device by
/// its `device_id` and an HMAC under its secret, never its token; a push's recipients are exact
/// sets, paged and exported; anonymous receipts still count; a receipt that names a device it
/// cannot sign for is stored anonymously (the attack: attributing receipts to someone else).
@Suite("who saw it: recipients", .serialized)
struct RecipientsTests {
    @Test("10,000 devices, receipts from half: delivered, not_delivered and opened are exact sets, paged and exported", arguments: StoreBackend.allCases)
    func tenThousand(_ backend: StoreBackend) async throws {
        let harness = try await RecipientHarness.make(backend)
        let tokens = CampaignHarness.tokens(10_000, prefix: "7e")
        let devices = try await harness.register(tokens)
        #expect(Set(devices.map(\.deviceID)).count == 10_000)
        try await harness.recordSend("r-10k", tokens)
        let delivered = devices.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let opened = devices.enumerated().filter { $0.offset % 4 == 0 }.map(\.element)
        for device in delivered { #expect(try await harness.receipt("r-10k", device: device) == 202) }
        for device in opened { #expect(try await harness.receipt("r-10k", event: .opened, device: device) == 202) }
        // Anonymous receipts keep working: counted, naming no one.
        for _ in 0..<7 { #expect(try await harness.receipt("r-10k", device: nil, outcome: .textOnly) == 202) }

        let got = try await harness.pages("r-10k", "delivered", limit: 1_000)
        #expect(got.ids.count == 5_000)
        #expect(Set(got.ids) == Set(delivered.map(\.deviceID)))
        #expect(got.ids == got.ids.sorted(), "in device id order")
        #expect(got.pages == 5 || got.pages == 6)
        let row = try #require(got.rows.first { $0["device_id"] as? String == delivered[0].deviceID })
        #expect(row["user_id"] as? String == "u0")
        #expect(row["platform"] as? String == "ios")
        #expect(row["outcome"] as? String == "media_attached")
        let missing = try await harness.pages("r-10k", "not_delivered", limit: 700)
        #expect(Set(missing.ids) == Set(devices.enumerated().filter { $0.offset % 2 == 1 }.map(\.element.deviceID)))
        #expect(missing.ids.count == 5_000)
        let openers = try await harness.pages("r-10k", "opened", limit: 1_000)
        #expect(Set(openers.ids) == Set(opened.map(\.deviceID)))
        // The push's figures count every receipt, named or not.
        let push = try await harness.server.push("r-10k")
        #expect(push["delivered"] as? Int == 5_007)
        #expect(push["opened"] as? Int == 2_500)

        // Exports: every row, NDJSON and CSV, no paging.
        let ndjson = try await harness.server.client().request(
            "GET", "/v1/pushes/r-10k/recipients?state=delivered&format=ndjson", headers: harness.server.admin)
        #expect(ndjson.status == 200)
        #expect(ndjson.headers["content-type"] == "application/x-ndjson")
        let lines = ndjson.text.split(separator: "\n")
        #expect(lines.count == 5_000)
        let exported = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }.compactMap {
            $0["device_id"] as? String
        }
        #expect(Set(exported) == Set(delivered.map(\.deviceID)))
        let csv = try await harness.server.client().request(
            "GET", "/v1/pushes/r-10k/recipients?state=not_delivered", headers: harness.server.admin.merging(["Accept": "text/csv"]) { $1 })
        #expect(csv.headers["content-type"] == "text/csv; charset=utf-8")
        let csvLines = csv.text.split(separator: "\r\n")
        #expect(csvLines.first == "device_id,user_id,platform,at,outcome")
        #expect(Set(csvLines.dropFirst().map { String($0.split(separator: ",")[0]) }) == Set(missing.ids))
        // No token anywhere in what the API answers.
        for text in [ndjson.text, csv.text] { #expect(!text.contains(tokens[0]) && !text.contains(tokens[1])) }
        try await harness.server.shutdown()
    }

    @Test(
        "a receipt naming a device it cannot sign for is stored anonymously: wrong MAC, another device's secret, an unknown id",
        arguments: StoreBackend.allCases)
    func forgedReferences(_ backend: StoreBackend) async throws {
        let harness = try await RecipientHarness.make(backend)
        let tokens = CampaignHarness.tokens(3, prefix: "7f")
        let devices = try await harness.register(tokens)
        try await harness.recordSend("r-forged", tokens)
        let client = harness.server.client()
        // A made-up MAC for device 0.
        var forged = RichPushReceipt(pushID: "r-forged", event: .delivered, receiptID: "f1")
        forged.deviceID = devices[0].deviceID
        forged.deviceMAC = String(repeating: "ab", count: 32)
        #expect(try await client.post("/v1/receipts", form: forged.formEncoded()).status == 202)
        // Device 1's secret, device 0's id (device 1 naming someone else).
        var impersonated = devices[1].reference.stamp(RichPushReceipt(pushID: "r-forged", event: .delivered, receiptID: "f2"))
        impersonated.deviceID = devices[0].deviceID
        #expect(try await client.post("/v1/receipts", form: impersonated.formEncoded()).status == 202)
        // An id no device has, signed with a real secret.
        var unknown = devices[2].reference.stamp(RichPushReceipt(pushID: "r-forged", event: .delivered, receiptID: "f3"))
        unknown.deviceID = "dev_" + String(repeating: "0", count: 32)
        #expect(try await client.post("/v1/receipts", form: unknown.formEncoded()).status == 202)
        // A receipt signed for another push, replayed on this one.
        let other = devices[2].reference.stamp(RichPushReceipt(pushID: "r-other", event: .delivered, receiptID: "f4"))
        var replayed = RichPushReceipt(pushID: "r-forged", event: .delivered, receiptID: "f4")
        (replayed.deviceID, replayed.deviceMAC) = (other.deviceID, other.deviceMAC)
        #expect(try await client.post("/v1/receipts", form: replayed.formEncoded()).status == 202)
        // Malformed references are refused with the field.
        var malformed = RichPushReceipt(pushID: "r-forged", event: .delivered, receiptID: "f5")
        malformed.deviceID = "abc"
        malformed.deviceMAC = "zz"
        let refused = try await client.post("/v1/receipts", form: malformed.formEncoded())
        #expect(refused.status == 400)
        #expect(try (refused.json()["error"] as? [String: Any])?["field"] as? String == "device_id")
        let half = try await client.post("/v1/receipts", form: "push_id=r-forged&device_id=\(devices[0].deviceID)")
        #expect(half.status == 400, "\(half.text)")

        #expect(try await harness.pages("r-forged", "delivered", limit: 10).ids.isEmpty)
        #expect(try await harness.server.push("r-forged")["delivered"] as? Int == 4, "the four stored anonymously still count")
        let metrics = try await client.request("GET", "/metrics").text
        #expect(metrics.contains("richpush_receipts_unverified_device_total 4"), "\(metrics.split(separator: "\n").filter { $0.contains("unverified") })")
        // The real device's own receipt is attributed.
        #expect(try await harness.receipt("r-forged", device: devices[0]) == 202)
        #expect(try await harness.pages("r-forged", "delivered", limit: 10).ids == [devices[0].deviceID])
        // The dashboard's push page lists them, with the other states and the exports.
        let page = try await client.request("GET", "/pushes/r-forged", headers: harness.server.admin).text
        #expect(page.contains("<h2>Who saw it</h2>"))
        #expect(page.contains(devices[0].deviceID) && page.contains("u0"))
        #expect(page.contains("/v1/pushes/r-forged/recipients?state=delivered&amp;format=csv"))
        let missingPage = try await client.request("GET", "/pushes/r-forged?recipients=not_delivered", headers: harness.server.admin).text
        #expect(missingPage.contains(devices[1].deviceID) && missingPage.contains(devices[2].deviceID) && !missingPage.contains(devices[0].deviceID))
        #expect(!page.contains(tokens[0]), "no token on the page")
        try await harness.server.shutdown()
    }

    @Test("the extension's receipt queue stamps its receipts only with the setting on and a credential saved; the server verifies them")
    func extensionStamps() async throws {
        let directory = try Fixtures.temporaryDirectory("recipient-credential")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(RichPushReceiptDeviceReference.load(from: directory) == nil)
        let reference = RichPushReceiptDeviceReference(deviceID: "dev_" + String(repeating: "1", count: 32), secret: String(repeating: "a1", count: 32))
        try reference.save(in: directory)
        #expect(RichPushReceiptDeviceReference.load(from: directory) == reference)
        // The MAC the extension computes is the one the server checks.
        let receipt = reference.stamp(RichPushReceipt(pushID: "p", event: .opened, receiptID: "rid"))
        let key = try #require(RegisterDeviceEndpoint.bytes(hex: reference.secret))
        let mac = try #require(RegisterDeviceEndpoint.bytes(hex: receipt.deviceMAC ?? ""))
        #expect(HMACSHA256.verify(mac, message: receipt.deviceMessage, key: key))
        #expect(receipt.formEncoded().hasSuffix("&device_id=\(reference.deviceID)&device_mac=\(receipt.deviceMAC ?? "")"))
        // The queue stamps a receipt only when asked to (the setting), after its stable receipt_id.
        let poster = RecordingPoster()
        let delivery = RichPushReceiptDelivery(directory: directory, poster: poster)
        let url = try #require(URL(string: "https://stats.example.com/v1/receipts"))
        _ = try await delivery.submit(RichPushReceipt(pushID: "p-anon", event: .delivered), to: url, timeout: 5)
        _ = try await delivery.submit(RichPushReceipt(pushID: "p-named", event: .delivered), to: url, timeout: 5, identified: true)
        let posted = poster.receipts.withLock { $0 }
        let anonymous = try #require(posted.first { $0.pushID == "p-anon" })
        #expect(anonymous.deviceID == nil && anonymous.deviceMAC == nil)
        let named = try #require(posted.first { $0.pushID == "p-named" })
        #expect(named.deviceID == reference.deviceID)
        #expect(named.deviceMAC == RichPushReceiptDeviceReference.mac(named.deviceMessage, secretHex: reference.secret))
        #expect(named.receiptID == (try InstallIdentity(directory: directory).receiptID(for: "p-named")))
        // The settings key, off by default.
        #expect(RichPushSettings.read(infoDictionary: ["RichPush": [:]]).pipeline.recipientReceipts == false)
        #expect(RichPushSettings.read(infoDictionary: ["RichPush": ["RecipientReceipts": true]]).pipeline.recipientReceipts == true)
        #expect(!RichPushSettings.read(infoDictionary: ["RichPush": ["RecipientReceipts": "yes"]]).problems.isEmpty)
    }
}

/// A receipt poster that keeps what it was given and answers 202.
final class RecordingPoster: ReceiptPoster {
    let receipts = Locked<[RichPushReceipt]>([])
    func post(_ receipt: RichPushReceipt, to url: URL, timeout: Double) async -> Int? {
        receipts.withLock { $0.append(receipt) }
        return 202
    }
}
