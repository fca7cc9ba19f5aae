import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// The default key paths over every payload RichPush knows (the articles' and the 12 vendors'):
/// each payload is found by exactly its own keys, never by another vendor's or article's.
@Suite("Default key paths: every payload by its own keys, no shadowing")
struct VendorKeyPathTests {
    /// Payload file (under `Tests/Fixtures/payloads/`) → the media key path and push id key path
    /// that find it (`nil`: none does).
    static let expected: [String: (media: String?, pushID: String?)] = [
        "seed000-basic.json": (nil, nil),
        "seed000-empty-body.json": ("aps.alert.image", "aps.alert.push_id"),
        "seed000-image-and-stats.json": ("aps.alert.image", "aps.alert.push_id"),
        "seed001-fcm-as-delivered.json": ("image-url", "gcm.message_id"),
        "seed001-fcm-send.json": (nil, nil),
        "seed002-attachment-url.json": ("attachment-url", nil),
        "seed003-audio.json": ("url", nil),
        "seed003-url.json": ("url", nil),
        "seed003-video.json": ("url", nil),
        "seed004-media-url.json": ("media-url", nil),
        "vendors/firebase.json": ("fcm_options.image", "gcm.message_id"),
        "vendors/onesignal.json": ("att", "custom.i"),
        "vendors/airship.json": ("com.urbanairship.media_attachment.url", "_"),
        "vendors/braze.json": ("ab.att.url", nil),
        "vendors/iterable.json": ("itbl.attachment-url", "itbl.messageId"),
        "vendors/clevertap.json": ("ct_mediaUrl", "wzrk_id"),
        "vendors/moengage.json": (nil, nil),
        "vendors/pushwoosh.json": ("attachment", "p"),
        "vendors/customerio.json": ("CIO.push.image", nil),
        "vendors/expo.json": ("body._richContent.image", nil),
        "vendors/pinpoint.json": ("data.media-url", nil),
        "vendors/batch.json": ("com.batch.at.u", "com.batch.i"),
    ]

    static func allPayloadNames() throws -> [String] {
        let vendors = try FileManager.default.contentsOfDirectory(atPath: Fixtures.payloadsDirectory.appendingPathComponent("vendors").path)
        return try Fixtures.payloadNames() + vendors.filter { $0.hasSuffix(".json") }.map { "vendors/" + $0 }
    }

    @Test("the table covers every payload fixture")
    func coversEveryPayload() throws {
        #expect(Set(try Self.allPayloadNames()) == Set(Self.expected.keys))
    }

    @Test("each payload is matched by exactly its own media key and push id key", arguments: expected.keys.sorted())
    func noShadowing(_ name: String) throws {
        let payload = try RichPushJSONValue.parse(try Fixtures.payload(name))
        let want = try #require(Self.expected[name])
        // Every default key that alone would find media (or an id) in this payload: only its own.
        let mediaKeys = RichPushPayloadKeyPath.defaultMediaKeyPaths.filter { !RichPushPayloadLookup.media(in: payload, keyPaths: [$0]).urls.isEmpty }
        let idKeys = RichPushPayloadKeyPath.defaultPushIDKeyPaths.filter { RichPushPayloadLookup.pushID(in: payload, keyPaths: [$0]) != nil }
        #expect(mediaKeys.map(\.description) == (want.media.map { [$0] } ?? []))
        #expect(idKeys.map(\.description) == (want.pushID.map { [$0] } ?? []))
        #expect(RichPushPayloadLookup.media(in: payload, keyPaths: RichPushPayloadKeyPath.defaultMediaKeyPaths).path?.description == want.media)
        #expect(RichPushPayloadLookup.pushID(in: payload, keyPaths: RichPushPayloadKeyPath.defaultPushIDKeyPaths)?.path.description == want.pushID)
    }

    @Test("each vendor payload is recognised as its vendor's, the articles' as none", arguments: expected.keys.sorted())
    func recognition(_ name: String) throws {
        let payload = try RichPushJSONValue.parse(try Fixtures.payload(name))
        let vendor = RichPushVendor.recognise(payload)?.identifier
        if name.hasPrefix("vendors/") {
            #expect(vendor == String(name.dropFirst("vendors/".count).dropLast(".json".count)))
        } else if name == "seed001-fcm-as-delivered.json" {
            #expect(vendor == "firebase")  // article 001 is an FCM payload
        } else {
            #expect(vendor == nil)
        }
    }

    @Test("the defaults are the articles' keys first, then each vendor's, each once; per-delivery ids are not push ids")
    func defaultsOrder() {
        #expect(
            Array(RichPushPayloadKeyPath.defaultMediaKeyPaths.prefix(RichPushPayloadKeyPath.articleMediaKeyPaths.count))
                == RichPushPayloadKeyPath.articleMediaKeyPaths)
        #expect(
            Array(RichPushPayloadKeyPath.defaultPushIDKeyPaths.prefix(RichPushPayloadKeyPath.articlePushIDKeyPaths.count))
                == RichPushPayloadKeyPath.articlePushIDKeyPaths)
        #expect(Set(RichPushPayloadKeyPath.defaultMediaKeyPaths).count == RichPushPayloadKeyPath.defaultMediaKeyPaths.count)
        #expect(!RichPushPayloadKeyPath.defaultPushIDKeyPaths.contains("CIO-Delivery-ID"))
        for vendor in RichPushVendor.all {
            #expect(vendor.mediaKeyPaths.allSatisfy(RichPushPayloadKeyPath.defaultMediaKeyPaths.contains), "\(vendor)")
            #expect(vendor.pushIDKeyPaths.allSatisfy(RichPushPayloadKeyPath.defaultPushIDKeyPaths.contains), "\(vendor)")
            #expect(vendor.idKind == .perMessage ? vendor.missingIDExplanation == nil : vendor.missingIDExplanation?.contains("push_id") == true, "\(vendor)")
        }
    }

    @Test("a url is media only with a media file extension; deep links are named, not returned")
    func deepLinkRule() {
        #expect(!RichPushPayloadLookup.isDeepLink("https://example.com/001.jpg"))
        #expect(!RichPushPayloadLookup.isDeepLink("https://example.com/clip.MP4?v=2"))
        #expect(RichPushPayloadLookup.isDeepLink("myapp://article/42"))
        #expect(RichPushPayloadLookup.isDeepLink("https://example.com/articles/42"))
        #expect(RichPushPayloadLookup.isDeepLink("https://example.com/sale.html"))
        let link: RichPushJSONValue = .object(["url": .string("myapp://article/42")])
        let found = RichPushPayloadLookup.media(in: link, keyPaths: RichPushPayloadKeyPath.defaultMediaKeyPaths)
        #expect(found.urls.isEmpty)
        #expect(found.deepLinks == ["myapp://article/42"])
        // Other keys are not subject to the rule: image-url is media whatever its path.
        let other: RichPushJSONValue = .object(["image-url": .string("https://cdn.example.com/image?id=3")])
        #expect(RichPushPayloadLookup.media(in: other, keyPaths: RichPushPayloadKeyPath.defaultMediaKeyPaths).urls == ["https://cdn.example.com/image?id=3"])
    }
}
