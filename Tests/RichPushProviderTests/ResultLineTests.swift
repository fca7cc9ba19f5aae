import Foundation
import RichPushCore
import RichPushProvider
import Testing

/// `richpush send` writes each result with `writeJSON(into:)`, field by field: the bytes must be
/// exactly those of `jsonValue` written with sorted keys (what the line was before), for every
/// shape of result.
@Suite("result lines: writeJSON is jsonValue's bytes")
struct ResultLineTests {
    static func bytes(_ result: some PushTokenResult) -> ([UInt8], [UInt8]) {
        var fast: [UInt8] = []
        result.writeJSON(into: &fast)
        var reference: [UInt8] = []
        result.jsonValue.write(into: &reference)
        return (fast, reference)
    }

    @Test("APNs results: accepted, 410 with a timestamp, an unknown reason, a message with quotes, controls and non-ASCII")
    func apns() {
        var accepted = APNsResult(deviceToken: String(repeating: "ab", count: 32), outcome: .accepted, attempts: 1)
        accepted.status = 200
        accepted.apnsID = "7c0e3a90-0d62-4d0b-9b7b-2a9a1f6e3c11"
        var gone = APNsResult(deviceToken: String(repeating: "cd", count: 32), outcome: .tokenInactive, attempts: 2, message: "inactive since")
        gone.status = 410
        gone.reason = .unregistered
        gone.timestamp = Date(timeIntervalSince1970: 1_700_000_000.123)
        var odd = APNsResult(deviceToken: "t\"ok\\en", outcome: .unknown, attempts: 3, message: "line\nbreak\t\u{01} «élan» \"quoted\" 🔔")
        odd.reason = APNsReason(rawValue: "SomethingApple2030Added")
        let bare = APNsResult(deviceToken: "", outcome: .notSent, attempts: 0)
        for result in [accepted, gone, odd, bare] {
            let (fast, reference) = Self.bytes(result)
            #expect(fast == reference, "\(String(decoding: fast, as: UTF8.self)) != \(String(decoding: reference, as: UTF8.self))")
        }
    }

    @Test("FCM results: accepted, an error code, a message, nothing")
    func fcm() {
        let accepted = FCMSendResult(deviceToken: "fcm-token:1", outcome: .accepted, status: 200, attempts: 1)
        var named = accepted
        named.messageName = "projects/p/messages/0:1"
        let bad = FCMSendResult(deviceToken: "x", outcome: .tokenBad, status: 400, errorCode: "INVALID_ARGUMENT", attempts: 1, message: "bad \"token\"")
        let none = FCMSendResult(deviceToken: "y", outcome: .notSent, attempts: 0, message: nil)
        for result in [accepted, named, bad, none] {
            let (fast, reference) = Self.bytes(result)
            #expect(fast == reference, "\(String(decoding: fast, as: UTF8.self)) != \(String(decoding: reference, as: UTF8.self))")
        }
    }
}
