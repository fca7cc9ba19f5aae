import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// A request field that is wrong is named with what it must be: `collapse_id` that is a string
/// but empty, a `platform` given in the wrong case, a key given twice (`duplicate_field`, as
/// receipts answer).
@Suite("request field messages")
struct RequestFieldMessagesTests {
    static let hex = String(repeating: "ab", count: 32)

    /// The error a `POST /v1/pushes` body is refused with.
    static func pushError(_ json: String) throws -> HTTPResponseError {
        try #require(throws: HTTPResponseError.self) { try PushSendRequest(body: Data(json.utf8), defaultTopic: "com.example.app") }
    }

    /// The error a `POST /v1/devices` body is refused with.
    static func deviceError(_ json: String) throws -> HTTPResponseError {
        try #require(throws: HTTPResponseError.self) { try DeviceRegistrationRequest(body: Data(json.utf8), contentType: "application/json") }
    }

    @Test("collapse_id: \"\" and 65 bytes say 1…64 bytes (it is a string); a number says it must be a string; 64 bytes are taken")
    func collapseID() throws {
        let empty = try Self.pushError(#"{"tokens": ["\#(Self.hex)"], "title": "t", "collapse_id": ""}"#)
        #expect(empty.field == "collapse_id")
        #expect(empty.message == "collapse_id is 0 bytes; it must be 1…64 bytes (Apple: apns-collapse-id), or leave it out for no collapsing")
        let long = try Self.pushError(#"{"tokens": ["\#(Self.hex)"], "title": "t", "collapse_id": "\#(String(repeating: "é", count: 33))"}"#)
        #expect(long.message.hasPrefix("collapse_id is 66 bytes; it must be 1…64 bytes"))
        let number = try Self.pushError(#"{"tokens": ["\#(Self.hex)"], "title": "t", "collapse_id": 7}"#)
        #expect(number.message == "collapse_id must be a string of 1…64 bytes (Apple: apns-collapse-id)")
        let fits = try PushSendRequest(
            body: Data(#"{"tokens": ["\#(Self.hex)"], "title": "t", "collapse_id": "\#(String(repeating: "c", count: 64))"}"#.utf8),
            defaultTopic: "com.example.app")
        #expect(fits.notification.collapseID == String(repeating: "c", count: 64))
    }

    @Test("platform: a value outside the list names it and the allowed values; a missing one says it is required")
    func platform() throws {
        let upper = try Self.deviceError(#"{"token": "\#(Self.hex)", "platform": "IOS"}"#)
        #expect(upper.field == "platform")
        #expect(upper.message == "platform \"IOS\" is not one of android, ios, ipados, macos, tvos, visionos, watchos, web (lower case, exactly as written)")
        let missing = try Self.deviceError(#"{"token": "\#(Self.hex)"}"#)
        #expect(missing.message == "platform is required: one of android, ios, ipados, macos, tvos, visionos, watchos, web")
    }

    @Test("a key given twice is 400 duplicate_field naming it, in devices, pushes and recorded sends alike")
    func duplicateKeys() throws {
        let device = try Self.deviceError(#"{"token": "\#(Self.hex)", "platform": "ios", "user_id": "alice", "user_id": "mallory"}"#)
        #expect(device.status == 400)
        #expect(device.code == "duplicate_field")
        #expect(device.field == "user_id")
        #expect(device.message == "user_id was given more than once (line 1, column 118); send it once")
        let push = try Self.pushError(#"{"tokens": ["\#(Self.hex)"], "title": "t", "title": "u"}"#)
        #expect(push.code == "duplicate_field")
        #expect(push.field == "title")
        let sends = try #require(throws: HTTPResponseError.self) {
            try RecordedSendRequest(pushID: "p", body: Data(#"{"batch_id": "a", "batch_id": "b", "sent": 1, "accepted": 1}"#.utf8), nowMs: 0)
        }
        #expect(sends.code == "duplicate_field")
        #expect(sends.field == "batch_id")
    }

    @Test("a recorded send's inactive_since: on another outcome, out of range or not an integer, the message names which")
    func inactiveSince() throws {
        func message(_ result: String) throws -> String {
            let body = #"{"batch_id": "a", "results": [{"token": "\#(Self.hex)", \#(result)}]}"#
            let error = try #require(throws: HTTPResponseError.self) { try RecordedSendRequest(pushID: "p", body: Data(body.utf8), nowMs: 0) }
            return error.message
        }
        #expect(try message(#""outcome": "accepted", "inactive_since": 1"#).contains("goes with the outcome token_inactive only"))
        #expect(try message(#""outcome": "accepted", "inactive_since": 1"#).contains("this result's outcome is accepted"))
        for value in ["-1", "4102444800001", "1000.5", "\"5\""] {
            let text = try message(#""outcome": "token_inactive", "inactive_since": "# + value)
            #expect(text.contains("must be an integer of ms since 1970 from 0 to 4102444800000"), "\(value): \(text)")
        }
        let given = try RecordedSendRequest(
            pushID: "p",
            body: Data(#"{"batch_id": "a", "results": [{"token": "\#(Self.hex)", "outcome": "token_inactive", "inactive_since": 1700000000000}]}"#.utf8),
            nowMs: 5)
        #expect(given.record.tokens.first?.inactiveSinceMs == 1_700_000_000_000)
    }

    @Test("POST /v1/devices through the server's admission and endpoint: a duplicate key is 400 duplicate_field, nothing registered")
    func duplicateOverHTTP() async throws {
        let dir = try Fixtures.temporaryDirectory("richpush-duplicate-device")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("receipts.sqlite").path
        let server = try InProcessServer(store: try SQLiteStore(path: path))
        let c = server.client()
        let body = #"{"token": "\#(Self.hex)", "token": "\#(String(repeating: "cd", count: 32))", "platform": "ios"}"#
        let r = try await c.postJSON("/v1/devices", body)
        #expect(r.status == 400, "\(r.text)")
        let error = try #require(try r.json()["error"] as? [String: Any])
        #expect(error["code"] as? String == "duplicate_field")
        #expect(error["field"] as? String == "token")
        let upper = try await c.postJSON("/v1/devices", #"{"token": "\#(Self.hex)", "platform": "IOS"}"#)
        #expect(upper.status == 400)
        #expect(
            (try upper.json()["error"] as? [String: Any])?["message"] as? String ?? ""
                == "platform \"IOS\" is not one of android, ios, ipados, macos, tvos, visionos, watchos, web (lower case, exactly as written)")
        try await server.shutdown()
        let store = try SQLiteStore(path: path)
        #expect(try store.deviceTokenState(Self.hex) == nil)
        try store.close()
    }
}
