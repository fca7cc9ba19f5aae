import Foundation
import RichPushCore
import RichPushServer
import Testing

/// How a `POST /v1/pushes` body becomes one notification (no network).
@Suite("POST /v1/pushes body")
struct PushSendRequestTests {
    static let token = String(repeating: "ab", count: 32)

    func request(_ body: [String: Any], makePushID: @escaping () -> String = { "generated-1" }) throws -> PushSendRequest {
        try PushSendRequest(body: try JSONSerialization.data(withJSONObject: body), defaultTopic: "com.example.app", makePushID: makePushID)
    }

    func payload(_ r: PushSendRequest) throws -> RichPushJSONValue {
        try RichPushJSONValue.parse(r.notification.payload)
    }

    @Test("without a push_id the server makes one and writes it into the payload under push_id")
    func generatedPushID() throws {
        let r = try request(["tokens": [Self.token], "title": "t", "body": "b", "image": "https://media.example.com/a.jpg"])
        #expect(r.pushID == "generated-1")
        #expect(r.pushIDGenerated)
        let p = try payload(r)
        #expect(p["push_id"] == .string("generated-1"))
        #expect(p["aps"]?["mutable-content"] == .int(1))
        #expect(p["image-url"] == .string("https://media.example.com/a.jpg"))
        #expect(r.notification.topic == "com.example.app")
        #expect(r.title == "t")
    }

    @Test("a push_id already in the payload (article 000: aps.alert.push_id) is kept and not written twice")
    func payloadPushIDKept() throws {
        let article: [String: Any] = ["aps": ["alert": ["push_id": "2018001", "title": "t", "body": "b"], "mutable-content": 1]]
        let r = try request(["tokens": [Self.token], "payload": article])
        #expect(r.pushID == "2018001")
        #expect(!r.pushIDGenerated)
        #expect(try payload(r)["push_id"] == nil)
        let same = try request(["push_id": "2018001", "tokens": [Self.token], "payload": article])
        #expect(same.pushID == "2018001")
        #expect(throws: HTTPResponseError.self) { try request(["push_id": "other", "tokens": [Self.token], "payload": article]) }
    }

    @Test("the request's push_id, headers and topic reach the notification; duplicate tokens are sent once")
    func headers() throws {
        let r = try request([
            "push_id": "p-7", "tokens": [Self.token, Self.token.uppercased(), Self.token], "title": "t", "push_type": "alert",
            "priority": 5, "collapse_id": "news", "expiration": 1_767_225_600, "topic": "com.example.other",
        ])
        #expect(r.tokens == [Self.token])
        #expect(try payload(r)["push_id"] == .string("p-7"))
        #expect(r.notification.priority?.rawValue == 5)
        #expect(r.notification.collapseID == "news")
        #expect(r.notification.expiration == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(r.notification.topic == "com.example.other")
    }

    @Test("bad bodies are refused naming the field")
    func refusals() {
        let cases: [([String: Any], String)] = [
            (["title": "t"], "tokens"),
            (["tokens": [], "title": "t"], "tokens"),
            (["tokens": [1], "title": "t"], "tokens"),
            (["tokens": [Self.token]], "payload"),
            (["tokens": [Self.token], "payload": ["aps": ["alert": "x"]], "title": "t"], "title"),
            (["tokens": [Self.token], "title": "t", "priority": 7], "priority"),
            (["tokens": [Self.token], "title": "t", "expiration": "tomorrow"], "expiration"),
            (["tokens": [Self.token], "title": "t", "colour": "red"], "colour"),
            (["tokens": [Self.token], "title": "t", "push_id": String(repeating: "x", count: 129)], "push_id"),
            (["tokens": [Self.token], "title": "t", "provider": "hms"], "provider"),
            (["tokens": [Self.token], "title": "t", "provider": 1], "provider"),
            (["user_ids": [], "title": "t"], "user_ids"),
            (["user_ids": ["u", ""], "title": "t"], "user_ids"),
            (["user_ids": ["u\u{7}"], "title": "t"], "user_ids"),
            (["user_ids": [String(repeating: "u", count: 129)], "title": "t"], "user_ids"),
            (["user_ids": (0...1_000).map { "u\($0)" }, "title": "t"], "user_ids"),
            (["user_ids": "u-1", "title": "t"], "user_ids"),
            (["tokens": [String(repeating: "a", count: 4_097)], "title": "t"], "tokens"),
            (["tokens": [Self.token], "title": "t", "expiration": 18_446_744_073_709_551_615 as UInt64], "expiration"),
            // Control characters in a button's texts (schemathesis against openapi.yaml's pattern: U+000F was sent).
            (
                ["tokens": [Self.token], "title": "t", "buttons": [["id": "a", "title": "A", "input": ["button": "Go", "placeholder": "x\u{0F}y"]]]],
                "buttons[0].input.placeholder"
            ),
            (["tokens": [Self.token], "title": "t", "buttons": [["id": "a", "title": "A"], ["id": "b", "title": "B\nC"]]], "buttons[1].title"),
            (["tokens": [Self.token], "title": "t", "buttons": [["id": "a\u{85}", "title": "A"]]], "buttons[0].id"),
            // A placeholder that is no string was read as an empty one (schemathesis sent {}).
            (
                ["tokens": [Self.token], "title": "t", "buttons": [["id": "a", "title": "A", "input": ["placeholder": [String: Any]()]]]],
                "buttons[0].input.placeholder"
            ),
        ]
        for (body, field) in cases {
            do {
                _ = try request(body)
                Issue.record("accepted \(body)")
            } catch let error as HTTPResponseError {
                #expect(error.status == 400)
                #expect(error.field == field, "\(body): \(error.message)")
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test("user_ids and provider are read; tokens may be left out when user_ids are given; FCM tokens keep their case")
    func usersAndProvider() throws {
        let r = try request(["user_ids": ["u-1", "u-2", "u-1"], "title": "t"])
        #expect(r.userIDs == ["u-1", "u-2"])
        #expect(r.tokens.isEmpty)
        #expect(r.provider == nil)
        let fcm = try request(["tokens": ["dXyZ:APA91bAbC", "dXyZ:APA91bAbC"], "provider": "fcm", "title": "t"])
        #expect(fcm.tokens == ["dXyZ:APA91bAbC"])
        #expect(fcm.provider == .fcm)
        // The payload is parsed strictly: a duplicate key would otherwise be dropped silently.
        #expect(throws: HTTPResponseError.self) {
            try PushSendRequest(body: Data(#"{"tokens":["\#(Self.token)"],"payload":{"aps":{"alert":"a"},"aps":{"alert":"b"}}}"#.utf8), defaultTopic: "t")
        }
        // 10.0 is not the integer 10 (JSONSerialization would write it as 10, hence the raw body).
        #expect(throws: HTTPResponseError.self) {
            try PushSendRequest(body: Data(#"{"tokens":["\#(Self.token)"],"title":"t","priority":10.0}"#.utf8), defaultTopic: "t")
        }
        // Without APNs settings there is no default topic: FCM needs none.
        #expect(try PushSendRequest(body: Data(#"{"tokens":["x"],"provider":"fcm","title":"t"}"#.utf8), defaultTopic: nil).notification.topic == "")
    }

    @Test("a payload over 4096 bytes is refused with the limit and the actual size, before sending")
    func tooLarge() throws {
        do {
            _ = try request(["tokens": [Self.token], "title": "t", "body": String(repeating: "x", count: 5_000)])
            Issue.record("accepted a 5 KB payload")
        } catch let error as HTTPResponseError {
            #expect(error.code == "payload_rejected")
            #expect(error.findings.contains { $0.code == .payloadTooLarge })
            #expect(error.message.contains("4096"))
        }
    }
}
