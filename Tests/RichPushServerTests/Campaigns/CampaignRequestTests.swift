import Foundation
import RichPushCore
import Testing

@testable import RichPushServer

/// `POST /v1/campaigns` bodies and `POST /v1/devices` tags, hostile ones included: each refused
/// with a 400 (or 413) naming the field, never a crash, nothing created.
@Suite("campaign requests and device tags")
struct CampaignRequestTests {
    static let nowMs = 1_800_000_000_000

    static func parse(_ object: [String: Any]) throws -> CampaignRequest {
        try CampaignRequest(body: try JSONSerialization.data(withJSONObject: object), defaultTopic: "com.example.app", nowMs: nowMs)
    }

    static func refusal(_ object: [String: Any]) -> HTTPResponseError? {
        do {
            _ = try parse(object)
            return nil
        } catch {
            return error as? HTTPResponseError
        }
    }

    @Test("each audience kind, send_at and per_minute are read")
    func reads() throws {
        let token = String(repeating: "AB", count: 32)
        let tokens = try Self.parse([
            "audience": ["tokens": [token, token.lowercased()]], "title": "Hi", "send_at": "2027-01-15T08:00:00+01:00", "per_minute": 600,
        ])
        #expect(tokens.audience == .tokens([token.lowercased()]))
        // nowMs is 2027-01-15T08:00:00Z: an hour before, in another zone.
        #expect(tokens.sendAtMs == Self.nowMs - 3_600_000)
        #expect(tokens.perMinute == 600)
        #expect(try Self.parse(["audience": ["all": true, "platform": "android"], "body": "x"]).audience == .all(platform: "android"))
        #expect(try Self.parse(["audience": ["user_ids": ["u1", "u1", "u2"]], "body": "x"]).audience == .userIDs(["u1", "u2"]))
        #expect(try Self.parse(["audience": ["tags": ["any": ["beta", "lang:fr", "beta"]]], "body": "x"]).audience == .tagsAny(["beta", "lang:fr"]))
        let content = try Self.parse(["audience": ["all": true], "push_id": "c-1", "title": "T", "collapse_id": "sale"]).content
        #expect(content.pushID == "c-1")
        #expect(content.notification.collapseID == "sale")
    }

    @Test(
        "hostile bodies: 400 (or 413) naming the field",
        arguments: [
            (#"{"title":"x"}"#, "audience"),
            (#"{"audience":{"all":true,"tokens":["ab"]},"title":"x"}"#, "audience"),
            (#"{"audience":{},"title":"x"}"#, "audience"),
            (#"{"audience":"everyone","title":"x"}"#, "audience"),
            (#"{"audience":{"all":false},"title":"x"}"#, "audience.all"),
            (#"{"audience":{"all":true,"platform":"symbian"},"title":"x"}"#, "audience.platform"),
            (#"{"audience":{"tags":{"any":["bad tag!"]}},"title":"x"}"#, "audience.tags.any"),
            (#"{"audience":{"tags":{"any":[]}},"title":"x"}"#, "audience.tags.any"),
            (#"{"audience":{"tags":{"all":["a"]}},"title":"x"}"#, "audience.tags"),
            (#"{"audience":{"tokens":["z z"]},"title":"x"}"#, "audience.tokens"),
            (#"{"audience":{"tokens":[]},"title":"x"}"#, "audience.tokens"),
            (
                #"{"audience":{"user_ids":["uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu"]},"title":"x"}"#,
                "audience.user_ids"
            ),
            (#"{"audience":{"user_ids":["a"]},"extra":1,"title":"x"}"#, "extra"),
            (#"{"audience":{"all":true},"title":"x","send_at":"tomorrow at nine"}"#, "send_at"),
            (#"{"audience":{"all":true},"title":"x","send_at":"2027-13-45T99:00:00Z"}"#, "send_at"),
            (#"{"audience":{"all":true},"title":"x","send_at":"2027-01-15T08:00:00"}"#, "send_at"),
            (#"{"audience":{"all":true},"title":"x","send_at":"1970-01-01T00:00:00Z"}"#, "send_at"),
            (#"{"audience":{"all":true},"title":"x","send_at":"9999-01-01T00:00:00Z"}"#, "send_at"),
            (#"{"audience":{"all":true},"title":"x","send_at":1800000000}"#, "send_at"),
            (#"{"audience":{"all":true},"title":"x","per_minute":0}"#, "per_minute"),
            (#"{"audience":{"all":true},"title":"x","per_minute":6000001}"#, "per_minute"),
            (#"{"audience":{"all":true},"title":"x","per_minute":1.5}"#, "per_minute"),
            (#"{"audience":{"all":true},"title":"x","per_minute":"60"}"#, "per_minute"),
            (#"{"audience":{"all":true},"title":"x","per_minute":1e300}"#, "per_minute"),
            (#"{"audience":{"all":true},"title":"x","collapse_id":"ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"}"#, "collapse_id"),
            (#"{"audience":{"all":true},"provider":"sms","title":"x"}"#, "provider"),
            (#"{"audience":{"all":true}}"#, "payload"),
        ])
    func refuses(_ body: String, _ field: String) {
        var refusal: HTTPResponseError?
        do {
            _ = try CampaignRequest(body: Data(body.utf8), defaultTopic: "com.example.app", nowMs: Self.nowMs)
        } catch {
            refusal = error as? HTTPResponseError
        }
        let error = refusal
        #expect(error?.status == 400, "\(String(describing: error))")
        #expect(error?.field == field, "\(String(describing: error))")
        #expect((error?.message.count ?? 0) > 20)
    }

    @Test("huge audience lists are refused before anything is stored: 100,001 tokens, 10,001 user ids")
    func bounds() {
        let tokens = CampaignHarness.tokens(CampaignRequest.maximumTokens + 1, prefix: "1")
        let tooMany = Self.refusal(["audience": ["tokens": tokens], "title": "x"])
        #expect(tooMany?.status == 413)
        #expect(tooMany?.code == "too_many_tokens")
        let users = (0...CampaignRequest.maximumUserIDs).map { "u\($0)" }
        let tooManyUsers = Self.refusal(["audience": ["user_ids": users], "title": "x"])
        #expect(tooManyUsers?.status == 413)
        #expect(tooManyUsers?.field == "audience.user_ids")
    }

    @Test("POST /v1/devices tags: bounded in count and length, refused with the field named")
    func deviceTags() throws {
        let token = String(repeating: "ab", count: 32)
        func body(_ tags: Any) throws -> Data {
            try JSONSerialization.data(withJSONObject: ["token": token, "platform": "ios", "tags": tags])
        }
        let ok = try DeviceRegistrationRequest(body: try body(["beta", "plan.pro", "lang:fr", "beta"]), contentType: "application/json")
        #expect(ok.tags == ["beta", "plan.pro", "lang:fr"])
        for hostile: Any in [
            (0...DeviceTagRule.maximumCount).map { "t\($0)" }, [String(repeating: "a", count: 65)], [""], ["has space"], ["ünï"], [1], "beta",
            ["a\u{0}b"],
        ] {
            #expect(throws: HTTPResponseError.self) { try DeviceRegistrationRequest(body: try body(hostile), contentType: "application/json") }
            do {
                _ = try DeviceRegistrationRequest(body: try body(hostile), contentType: "application/json")
            } catch let error as HTTPResponseError {
                #expect(error.status == 400)
                #expect(error.field == "tags")
            }
        }
    }
}
