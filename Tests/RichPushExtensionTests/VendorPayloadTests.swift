import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// The 12 vendors' payloads as each delivers them to iOS (`Tests/Fixtures/payloads/vendors/`),
/// through the real pipeline against a real media server and a real receipts listener.
@Suite("Vendor payloads out of the box")
struct VendorPayloadTests {
    struct Case: Sendable, CustomTestStringConvertible {
        /// The fixture under `payloads/vendors/`.
        let fixture: String
        let vendor: String
        /// The key path the media URL is found at (`nil`: RichPush finds none by default).
        let mediaKey: String?
        /// The vendor's per-message id, used as the push id.
        let pushID: String?
        /// The key path of the push id.
        let pushIDKey: String?
        /// Why there is no push id, when there is none.
        let skip: RichPushReceiptSkipReason.Code?
        var testDescription: String { fixture }
    }

    static let cases: [Case] = [
        Case(fixture: "firebase.json", vendor: "firebase", mediaKey: "fcm_options.image", pushID: "1764590000000042", pushIDKey: "gcm.message_id", skip: nil),
        Case(
            fixture: "onesignal.json", vendor: "onesignal", mediaKey: "att", pushID: "5f2b3c4d-6e7f-4a8b-9c0d-1e2f3a4b5c6d", pushIDKey: "custom.i",
            skip: nil),
        Case(
            fixture: "airship.json", vendor: "airship", mediaKey: "com.urbanairship.media_attachment.url",
            pushID: "d2f0c1a4-7b3e-4c55-9e21-5a8b6c7d8e9f", pushIDKey: "_", skip: nil),
        // Braze's message id key is not verified: no push id, the reason names the field to add.
        Case(fixture: "braze.json", vendor: "braze", mediaKey: "ab.att.url", pushID: nil, pushIDKey: nil, skip: .noPushID),
        Case(
            fixture: "iterable.json", vendor: "iterable", mediaKey: "itbl.attachment-url", pushID: "6a0f2c1e9b8d4f7a8c3e2d1b0a9f8e7d",
            pushIDKey: "itbl.messageId", skip: nil),
        Case(fixture: "clevertap.json", vendor: "clevertap", mediaKey: "ct_mediaUrl", pushID: "1764590000_20261201", pushIDKey: "wzrk_id", skip: nil),
        // MoEngage's keys are not verified: recognised, nothing read by default (docs/vendors.md says so).
        Case(fixture: "moengage.json", vendor: "moengage", mediaKey: nil, pushID: nil, pushIDKey: nil, skip: .noPushID),
        Case(fixture: "pushwoosh.json", vendor: "pushwoosh", mediaKey: "attachment", pushID: "2aX7-Bc3dE9f", pushIDKey: "p", skip: nil),
        // Customer.io's CIO-Delivery-ID is per delivery: not a push id.
        Case(fixture: "customerio.json", vendor: "customerio", mediaKey: "CIO.push.image", pushID: nil, pushIDKey: nil, skip: .perDeliveryID),
        // Expo sends no message id.
        Case(fixture: "expo.json", vendor: "expo", mediaKey: "body._richContent.image", pushID: nil, pushIDKey: nil, skip: .vendorHasNoID),
        Case(fixture: "pinpoint.json", vendor: "pinpoint", mediaKey: "data.media-url", pushID: nil, pushIDKey: nil, skip: .noPushID),
        Case(fixture: "batch.json", vendor: "batch", mediaKey: "com.batch.at.u", pushID: "k2m4p6r8-u1764590000000_000001", pushIDKey: "com.batch.i", skip: nil),
    ]

    /// The fixture's text with every `https://media.example.com/…` URL pointed at the local server's photo.
    static func localPayload(_ fixture: String, server: MediaServer) throws -> Data {
        let text = String(decoding: try Fixtures.payload("vendors/" + fixture), as: UTF8.self)
        return Data(
            text.replacingOccurrences(of: #"https://media\.example\.com/[^"]+"#, with: server.url("/media/photo.jpg"), options: .regularExpression).utf8)
    }

    @Test("covers every vendor fixture and every vendor of the catalog")
    func coversEveryFixture() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.payloadsDirectory.appendingPathComponent("vendors").path)
        #expect(Set(names.filter { $0.hasSuffix(".json") }) == Set(Self.cases.map(\.fixture)))
        #expect(Set(RichPushVendor.all.map(\.identifier)) == Set(Self.cases.map(\.vendor)))
        #expect(RichPushVendor.all.count == 12)
    }

    @Test("each vendor's image is attached and its id is the push id (or the receipt says why not)", arguments: cases)
    func vendorPayload(_ c: Case) async throws {
        let server = try await MediaServer.get("fixtures")
        var configuration = try testConfiguration(deadline: arrivalDeadline)
        configuration.receiptsURL = server.receiptsURL
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let run = NotificationPipeline(configuration: configuration).start(payload: try Self.localPayload(c.fixture, server: server)) { _ in }
        let result = await run.result()
        let final = await run.waitUntilSettled()
        #expect(result.vendor?.identifier == c.vendor)
        #expect(result.pushID == c.pushID)
        #expect(result.pushIDKeyPath?.description == c.pushIDKey)
        if c.mediaKey != nil {
            #expect(result.outcome == .mediaAttached, "\(result.message)")
            let attachment = try #require(result.content.attachments.first)
            #expect(attachment.type == "public.jpeg")
            #expect(attachment.bytes == (try Data(contentsOf: Fixtures.media("photo.jpg"))).count)
        } else {
            #expect(result.outcome == .textOnly)
            #expect(result.reason == .noMedia)
        }
        if let pushID = c.pushID {
            #expect(final.status == .sent, "\(final)")
            let body = try #require(try await server.receipts().first { $0.contains("receipt_id=\(final.receiptID ?? "?")") })
            let fields = Self.fields(body)
            #expect(fields["push_id"] == pushID)
            #expect(fields["vendor"] == c.vendor)
            #expect(fields["outcome"] == (c.mediaKey == nil ? "text_only" : "media_attached"))
        } else {
            #expect(final.status == .skipped)
            let skip = try #require(final.skipReason)
            #expect(skip.code == c.skip)
            // The reason names the vendor and the key paths looked at.
            let vendor = try #require(RichPushVendor.all.first { $0.identifier == c.vendor })
            #expect(skip.message.contains(vendor.name), "\(skip.message)")
            #expect(skip.message.contains("looked at aps.alert.push_id, push_id"), "\(skip.message)")
            #expect(skip.message.contains("push_id"))
        }
    }

    @Test(
        "the documented field the sender adds gives the vendor's payload its push id",
        arguments: ["braze.json", "customerio.json", "pinpoint.json", "moengage.json"])
    func addedPushID(_ fixture: String) throws {
        guard case .object(var root) = try RichPushJSONValue.parse(try Fixtures.payload("vendors/" + fixture)) else {
            throw RichPushError(code: .invalidPayload, message: fixture)
        }
        #expect(RichPushPayloadLookup.pushID(in: .object(root), keyPaths: RichPushPayloadKeyPath.defaultPushIDKeyPaths) == nil)
        root["push_id"] = .string("sale-2026-12")
        let found = try #require(RichPushPayloadLookup.pushID(in: .object(root), keyPaths: RichPushPayloadKeyPath.defaultPushIDKeyPaths))
        #expect(found.path == "push_id")
        #expect(found.value == "sale-2026-12")
    }

    @Test("Expo: push_id added to the message's data arrives as body.push_id and is the push id")
    func expoPushID() throws {
        guard case .object(var root) = try RichPushJSONValue.parse(try Fixtures.payload("vendors/expo.json")), case .object(var body)? = root["body"] else {
            throw RichPushError(code: .invalidPayload, message: "expo.json")
        }
        body["push_id"] = .string("sale-2026-12")
        root["body"] = .object(body)
        let found = try #require(RichPushPayloadLookup.pushID(in: .object(root), keyPaths: RichPushPayloadKeyPath.defaultPushIDKeyPaths))
        #expect(found.path == "body.push_id")
        #expect(found.value == "sale-2026-12")
    }

    @Test("Expo: the image of richContent, as Expo delivers it (body._richContent.image), and RichPush's image-url in data, both read")
    func expoRichContentAndImageURL() throws {
        let delivered = try RichPushJSONValue.parse(try Fixtures.payload("vendors/expo.json"))
        let media = RichPushPayloadLookup.media(in: delivered, keyPaths: RichPushPayloadKeyPath.defaultMediaKeyPaths)
        #expect(media.path == "body._richContent.image")
        #expect(media.urls == ["https://media.example.com/expo/photo.jpg"])
        // Sent with data {"image-url": …} instead: read as before.
        let own: RichPushJSONValue = .object([
            "aps": .object(["alert": .string("Hi"), "mutable-content": .int(1)]), "experienceId": .string("@acme/shop"),
            "body": .object(["image-url": .string("https://media.example.com/expo/own.jpg")]),
        ])
        #expect(RichPushPayloadLookup.media(in: own, keyPaths: RichPushPayloadKeyPath.defaultMediaKeyPaths).urls == ["https://media.example.com/expo/own.jpg"])
        #expect(RichPushVendor.recognise(own) == .expo)
    }

    @Test("OneSignal's att with several attachments: each URL, in key order; a bundle resource name is skipped")
    func oneSignalAttachmentDictionary() {
        let payload: RichPushJSONValue = .object([
            "att": .object(["b": .string("https://a.example.com/2.png"), "a": .string("https://a.example.com/1.jpg"), "c": .string("local.png")])
        ])
        let media = RichPushPayloadLookup.media(in: payload, keyPaths: RichPushPayloadKeyPath.defaultMediaKeyPaths)
        #expect(media.path == "att")
        #expect(media.urls == ["https://a.example.com/1.jpg", "https://a.example.com/2.png"])
        #expect(!media.isSingleString)
    }

    static func fields(_ body: String) -> [String: String] {
        Dictionary(
            body.split(separator: "&").map { pair -> (String, String) in
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                return (kv[0], (kv.count > 1 ? kv[1] : "").replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "")
            }, uniquingKeysWith: { first, _ in first })
    }
}
