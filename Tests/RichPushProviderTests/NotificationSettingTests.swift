import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

/// `APNsNotification.validate` names the setting to change as a structured field, in words, and
/// no program's flag; `richpush send` adds its own option (issue 17 item 5).
@Suite("notification settings in validate errors")
struct NotificationSettingTests {
    static let payload = Data(#"{"aps":{"content-available":1}}"#.utf8)

    @Test("background with priority 10: setting priority; a topic with a space: setting topic; no --flag in either")
    func libraryGivesTheSetting() throws {
        var background = APNsNotification(payload: Self.payload, topic: "com.example.app", pushType: .background)
        background.priority = .immediately
        #expect {
            _ = try background.validate()
        } throws: { error in
            guard let error = error as? RichPushError else { return false }
            return error.code == .invalidRequest && error.setting == APNsNotification.Setting.priority.rawValue && !error.message.contains("--")
                && error.message.contains("apns-priority 5")
        }
        let spaced = APNsNotification(payload: Self.payload, topic: "com example")
        #expect {
            _ = try spaced.validate()
        } throws: { error in
            guard let error = error as? RichPushError else { return false }
            return error.setting == APNsNotification.Setting.topic.rawValue && !error.message.contains("--")
                && error.message.contains("\"com example\" is not a bundle id")
        }
    }

    @Test("richpush send names its own options for them: --priority, --topic")
    func sendNamesItsOptions() async throws {
        let directory = try Fixtures.temporaryDirectory("notification-settings")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("AuthKey_ABC123DEFG.p8")
        try await MockAPNs.makeKey(at: key)
        let common = ["send", "--key", key.path, "--team-id", MockAPNs.teamID, "--title", "t", "--body", "b", "--token", MockAPNs.token("ab"), "--dry-run"]
        let background = try await ChildProcess(
            Fixtures.richpushBinary.path, common + ["--topic", MockAPNs.topic, "--push-type", "background", "--priority", "10"]
        ).run(timeout: 60)
        #expect(background.status == 1)
        #expect(background.stderr.contains("a background push must have apns-priority 5 (Apple)"), "\(background.stderr)")
        #expect(background.stderr.contains("(--priority)"), "\(background.stderr)")
        let spaced = try await ChildProcess(Fixtures.richpushBinary.path, common + ["--topic", "com example"]).run(timeout: 60)
        #expect(spaced.status == 1)
        #expect(spaced.stderr.contains("\"com example\" is not a bundle id"), "\(spaced.stderr)")
        #expect(spaced.stderr.contains("(--topic)"), "\(spaced.stderr)")
    }
}
