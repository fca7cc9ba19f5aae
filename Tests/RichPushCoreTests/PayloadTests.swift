import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@Suite struct PayloadTests {
    @Test func everyArticlePayloadParsesAndNamesItsMediaURL() throws {
        for name in try Fixtures.payloadNames() where name != "seed001-fcm-send.json" {
            let payload = try RichPushNotificationPayload.parse(try Fixtures.payload(name))
            let media = payload.firstString(at: RichPushPayloadKeyPath.defaultMediaKeyPaths)
            if name == "seed000-basic.json" {
                #expect(media == nil)
            } else {
                #expect(media?.value.hasPrefix("https://") == true, "\(name)")
            }
            #expect(payload.isMutableContent, "\(name)")
        }
    }

    @Test func keyPathsWithDotsInKeysAreFound() throws {
        let json = try RichPushJSONValue.parse(Data(#"{"gcm.message_id":"1543","fcm_options":{"image":"https://x/y.png"}}"#.utf8))
        #expect(RichPushPayloadKeyPath("gcm.message_id").string(in: json) == "1543")
        #expect(RichPushPayloadKeyPath("fcm_options.image").string(in: json) == "https://x/y.png")
        #expect(RichPushPayloadKeyPath("gcm.nothing").string(in: json) == nil)
    }

    @Test func mutableContentMustBeTheInteger1() throws {
        for (text, expected) in [("1", true), ("\"1\"", false), ("true", false), ("1.5", false), ("0", false)] {
            let payload = try RichPushNotificationPayload.parse(Data(#"{"aps":{"alert":"x","mutable-content":\#(text)}}"#.utf8))
            #expect(payload.isMutableContent == expected, "mutable-content: \(text)")
        }
    }

    @Test func malformedPayloadsThrowInvalidPayload() throws {
        for text in [#""just a string""#, #"{"aps":"hello"}"#, #"{"aps":{"alert":42}}"#, #"{"aps":{"badge":"3"}}"#] {
            #expect(throws: RichPushError.self) { try RichPushNotificationPayload.parse(Data(text.utf8)) }
        }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: RichPushError.self) { try RichPushNotificationPayload.parse(Data(deep.utf8)) }
    }

    @Test func receiptFormBodyStartsWithPushID() {
        let receipt = RichPushReceipt(pushID: "2018001", receiptID: "r 1", outcome: .mediaAttached, elapsedMs: 42, mediaType: "public.jpeg")
        #expect(receipt.formEncoded() == "push_id=2018001&event=delivered&receipt_id=r+1&outcome=media_attached&elapsed_ms=42&media_type=public.jpeg")
    }
}
