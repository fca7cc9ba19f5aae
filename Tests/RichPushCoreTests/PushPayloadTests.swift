import Foundation
import RichPushCore
import Testing

@Suite struct PushPayloadTests {
    @Test func aRichPayloadHasEveryMemberInAPNsForm() throws {
        var payload = RichPushPayloadBuilder(title: "お知らせ", subtitle: "sub", body: "テスト")
        payload.alert?.locKey = "BODY_KEY"
        payload.alert?.locArgs = ["a", "b"]
        payload.badge = 3
        payload.sound = "default"
        payload.threadID = "chat-1"
        payload.category = "image"
        payload.interruptionLevel = .timeSensitive
        payload.relevanceScore = 0.5
        payload.customKeys = ["room": .int(7)]
        payload.mediaURL = "https://example.com/001.jpg"
        payload.pushID = "2018001"

        let json = try RichPushJSONValue.parse(payload.jsonData())
        let aps = try #require(json["aps"])
        #expect(aps["alert"]?["title"] == .string("お知らせ"))
        #expect(aps["alert"]?["subtitle"] == .string("sub"))
        #expect(aps["alert"]?["body"] == .string("テスト"))
        #expect(aps["alert"]?["loc-key"] == .string("BODY_KEY"))
        #expect(aps["alert"]?["loc-args"] == .array([.string("a"), .string("b")]))
        #expect(aps["badge"] == .int(3))
        #expect(aps["sound"] == .string("default"))
        #expect(aps["thread-id"] == .string("chat-1"))
        #expect(aps["category"] == .string("image"))
        #expect(aps["mutable-content"] == .int(1))
        #expect(aps["interruption-level"] == .string("time-sensitive"))
        #expect(aps["relevance-score"] == .double(0.5))
        #expect(json["image-url"] == .string("https://example.com/001.jpg"))
        #expect(json["push_id"] == .string("2018001"))
        #expect(json["room"] == .int(7))
        #expect(RichPushPayloadLinter().lint(payload.jsonData()).isEmpty)
    }

    @Test func theMediaURLGoesUnderTheChosenKey() throws {
        var payload = RichPushPayloadBuilder(title: "t", body: "b")
        payload.mediaKeyPath = "aps.alert.image"
        payload.mediaURL = "https://example.com/a.png"
        let json = try RichPushJSONValue.parse(payload.jsonData())
        #expect(json["aps"]?["alert"]?["image"] == .string("https://example.com/a.png"))
        #expect(json["aps"]?["alert"]?["title"] == .string("t"))
        #expect(json["aps"]?["mutable-content"] == .int(1))
        #expect(RichPushPayloadKeyPath.defaultMediaKeyPaths.first?.string(in: json) == "https://example.com/a.png")
    }

    @Test func aBackgroundPushHasNoAlertAndNoMutableContent() throws {
        var payload = RichPushPayloadBuilder()
        payload.contentAvailable = true
        let json = try RichPushJSONValue.parse(payload.jsonData())
        #expect(json == .object(["aps": .object(["content-available": .int(1)])]))
    }
}
