import Foundation
import RichPushCore
import RichPushServer
import Testing

/// Issue 30: `POST /v1/pushes` takes a message's `sender` and `conversation` and writes them into
/// the payload the RichPush extension reads.
@Suite("POST /v1/pushes sender and conversation")
struct PushMessageFieldTests {
    static let token = String(repeating: "ab", count: 32)

    func request(_ body: [String: Any]) throws -> PushSendRequest {
        try PushSendRequest(body: try JSONSerialization.data(withJSONObject: body), defaultTopic: "com.example.app", makePushID: { "p-1" })
    }

    func payload(_ r: PushSendRequest) throws -> RichPushJSONValue { try RichPushJSONValue.parse(r.notification.payload) }

    @Test func aBuiltPayloadGetsTheSenderTheConversationAndMutableContent() throws {
        let r = try request([
            "tokens": [Self.token], "title": "Engine room", "body": "It runs!",
            "sender": ["id": "u-42", "name": "Ada Lovelace", "avatar": "https://cdn.example.com/ada.jpg"],
            "conversation": ["id": "c-7", "name": "Engine room", "group": true],
        ])
        let p = try payload(r)
        #expect(p["aps"]?["mutable-content"] == .int(1))
        #expect(p["sender"]?["name"] == .string("Ada Lovelace"))
        #expect(p["conversation"]?["group"] == .bool(true))
        #expect(RichPushMessage.read(from: p).message?.conversation.name == "Engine room")
    }

    @Test func aGivenPayloadGetsTheFieldsAndStillNeedsMutableContent() throws {
        let withFlag = try request([
            "tokens": [Self.token], "payload": ["aps": ["alert": "Tea?", "mutable-content": 1]], "sender": ["id": 42, "name": "Ada"],
        ])
        #expect(try payload(withFlag)["sender"]?["id"] == .string("42"))
        #expect(throws: HTTPResponseError.self) {
            try request(["tokens": [Self.token], "payload": ["aps": ["alert": "Tea?"]], "sender": ["id": "u", "name": "Ada"]])
        }
    }

    @Test func wrongFieldsAre400NamingTheField() throws {
        let bodies: [([String: Any], String, String)] = [
            (["sender": ["name": "Ada"]], "sender", "`sender.id` is missing"),
            (["sender": "Ada"], "sender", "must be an object"),
            (["sender": ["id": "u", "name": "Ada"], "conversation": ["group": true]], "conversation", "`conversation.id` is missing"),
            (["conversation": ["id": "c"]], "conversation", "a conversation is named but no sender"),
            (
                ["sender": ["id": "u", "name": "Ada"], "payload": ["aps": ["alert": "x", "mutable-content": 1], "sender": ["id": "v", "name": "B"]]],
                "sender", "not both"
            ),
        ]
        for (extra, field, words) in bodies {
            var body: [String: Any] = ["tokens": [Self.token]]
            if extra["payload"] == nil { body["title"] = "t" }
            body.merge(extra) { _, new in new }
            do {
                _ = try request(body)
                Issue.record("accepted \(extra)")
            } catch let error as HTTPResponseError {
                #expect(error.field == field, "\(extra): \(error)")
                #expect(error.message.contains(words), "\(extra): \(error.message)")
            }
        }
    }
}
