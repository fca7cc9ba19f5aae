import Foundation
import RichPushCore
import Testing

@testable import RichPushServer

/// One rule for device tokens (`DeviceTokenRule`) in every endpoint that takes them; `null`
/// optional fields of a registration are absent.
@Suite("device token rule")
struct DeviceTokenRuleTests {
    static let hex = String(repeating: "AB", count: 32)

    /// What each endpoint's request makes of a token: the kept token, or `nil` when refused naming the token field.
    static func outcomes(_ token: String) throws -> [String: String?] {
        let quoted = String(decoding: RichPushJSONValue.string(token).jsonData(), as: UTF8.self)
        func refusedOnToken(_ body: () throws -> String) throws -> String? {
            do {
                return try body()
            } catch let error as HTTPResponseError {
                #expect(error.status == 400)
                #expect(["tokens", "results", "token"].contains(error.field ?? ""), "\(error)")
                // The rule is named (an empty token in a registration: "token is required").
                #expect(error.message.contains("1…1024 printable ASCII") || error.message.hasPrefix("token is required"), "\(error.message)")
                return nil
            }
        }
        return [
            "pushes": try refusedOnToken {
                let body = Data(#"{"tokens": [\#(quoted)], "title": "t", "body": "b"}"#.utf8)
                return try PushSendRequest(body: body, defaultTopic: "com.example.app").tokens.joined()
            },
            "sends": try refusedOnToken {
                let body = Data(#"{"batch_id": "b", "results": [{"token": \#(quoted), "outcome": "accepted"}]}"#.utf8)
                return try RecordedSendRequest(pushID: "p", body: body, nowMs: 0).record.tokens.map(\.deviceToken).joined()
            },
            "devices": try refusedOnToken {
                let body = Data(#"{"token": \#(quoted), "platform": "android", "provider": "fcm"}"#.utf8)
                return try DeviceRegistrationRequest(body: body, contentType: "application/json").token
            },
            "rule": DeviceTokenRule.canonical(token, provider: nil),
        ]
    }

    @Test("POST /v1/pushes, recorded sends and POST /v1/devices accept and refuse the same tokens, up to 1,024 bytes")
    func sameRuleEverywhere() throws {
        let longest = String(repeating: "x", count: DeviceTokenRule.maximumBytes)
        let accepted: [(String, String)] = [
            (longest, longest), ("fcm-device-1:APA91b_x", "fcm-device-1:APA91b_x"), ("  padded  ", "padded"), ("x", "x"),
        ]
        for (token, kept) in accepted {
            let seen = try Self.outcomes(token)
            #expect(seen.values.allSatisfy { $0 == kept }, "\(token.prefix(20)): \(seen)")
        }
        for token in [longest + "x", "has space", #"quo"te"#, #"back\slash"#, "tab\there", "é", "", "   "] {
            let seen = try Self.outcomes(token)
            #expect(seen.values.allSatisfy { $0 == nil }, "\(token.prefix(20)): \(seen)")
        }
        // An APNs hex token keeps one spelling (lower case) wherever it comes in; FCM keeps its case.
        for (endpoint, kept) in try Self.outcomes(Self.hex) where endpoint != "devices" {
            #expect(kept == Self.hex.lowercased(), "\(endpoint)")
        }
        let apns = try DeviceRegistrationRequest(body: Data(#"{"token": "\#(Self.hex)", "platform": "ios"}"#.utf8), contentType: nil)
        #expect(apns.token == Self.hex.lowercased())
        #expect(apns.provider == "apns")
        #expect(DeviceTokenRule.canonical(Self.hex, provider: "fcm") == Self.hex)
    }

    @Test("POST /v1/devices: a null optional field is the field left out (\"user_id\": null = no user); null required fields are missing")
    func nullIsAbsent() throws {
        func register(_ json: String) throws -> DeviceRegistrationRequest {
            try DeviceRegistrationRequest(body: Data(json.utf8), contentType: "application/json")
        }
        let signedOut = try register(
            #"{"token": "\#(Self.hex)", "platform": "ios", "user_id": null, "user_hash": null, "app_version": null, "provider": null}"#)
        #expect(signedOut.userID == nil)
        #expect(signedOut.userHash == nil)
        #expect(signedOut.appVersion == nil)
        #expect(signedOut.provider == "apns")
        #expect(signedOut == (try register(#"{"token": "\#(Self.hex)", "platform": "ios"}"#)))
        for (json, field) in [
            (#"{"token": null, "platform": "ios"}"#, "token"),
            (#"{"token": "\#(Self.hex)", "platform": null}"#, "platform"),
            (#"{"token": "\#(Self.hex)", "platform": "ios", "user_id": 42}"#, "user_id"),
            (#"{"token": "\#(Self.hex)", "platform": "ios", "user_id": null, "user_hash": "\#(String(repeating: "a", count: 64))"}"#, "user_hash"),
        ] {
            #expect(throws: HTTPResponseError.self, "\(json)") { try register(json) }
            do {
                _ = try register(json)
            } catch let error as HTTPResponseError {
                #expect(error.field == field, "\(json): \(error)")
            }
        }
    }
}
