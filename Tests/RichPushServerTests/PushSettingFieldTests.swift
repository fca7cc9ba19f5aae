import Foundation
import RichPushCore
import RichPushProvider
import RichPushServer
import Testing

/// A notification setting `APNsNotification.validate` refuses comes back from `POST /v1/pushes`
/// naming the API's own JSON field, never a command-line flag (issue 17 item 5).
@Suite("POST /v1/pushes names its JSON fields")
struct PushSettingFieldTests {
    @Test("background with priority 10: 400 invalid_request, field priority, no --flag in the message")
    func backgroundWithPriorityTen() throws {
        let body = try JSONSerialization.data(withJSONObject: [
            "tokens": [String(repeating: "ab", count: 32)], "payload": ["aps": ["content-available": 1]], "push_type": "background", "priority": 10,
        ])
        do {
            _ = try PushSendRequest(body: body, defaultTopic: "com.example.app", makePushID: { "p-1" })
            Issue.record("a background push with priority 10 was accepted")
        } catch let error as HTTPResponseError {
            #expect(error.status == 400)
            #expect(error.code == "invalid_request")
            #expect(error.field == "priority")
            #expect(error.message.contains("apns-priority 5"), "\(error.message)")
            #expect(!error.message.contains("--"), "\(error.message)")
        }
    }

    @Test("every notification setting maps to a field of the request body")
    func everySettingHasAField() {
        #expect(APNsNotification.Setting.allCases.map(PushSendRequest.field) == ["topic", "priority", "push_type", "collapse_id"])
    }
}
