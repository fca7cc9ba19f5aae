#if !canImport(UserNotifications)
import Foundation
import Testing
import UserNotificationsStandIn

/// Content, copies and categories behave as Apple's classes do.
@Suite struct StandInContentTests {
    @Test func aMutableCopyIsIndependentOfTheOriginal() throws {
        let original = UNMutableNotificationContent()
        original.title = "新しい記事"
        original.body = "今すぐ確認"
        original.badge = 3
        original.userInfo = ["push_id": "2018001"]
        let request = UNNotificationRequest(identifier: "r1", content: original, trigger: UNPushNotificationTrigger())
        let copy = try #require(request.content.mutableCopy() as? UNMutableNotificationContent)
        copy.body = "changed"
        #expect(request.content.body == "今すぐ確認")
        #expect(copy.title == "新しい記事")
        #expect(copy.badge?.intValue == 3)
        #expect(copy.userInfo["push_id"] as? String == "2018001")
    }

    @Test func theRequestKeepsAnImmutableCopyOfItsContent() {
        let content = UNMutableNotificationContent()
        content.title = "before"
        let request = UNNotificationRequest(identifier: "r", content: content, trigger: nil)
        content.title = "after"
        #expect(request.content.title == "before")
        #expect(!(request.content is UNMutableNotificationContent))
    }

    @Test func copyOfMutableContentIsImmutable() {
        let content = UNMutableNotificationContent()
        content.subtitle = "s"
        let copy = content.copy()
        #expect(!(copy is UNMutableNotificationContent))
        #expect((copy as? UNNotificationContent)?.subtitle == "s")
    }

    @Test func soundsCompareByName() {
        #expect(UNNotificationSound.default == UNNotificationSound.default)
        #expect(UNNotificationSound(named: UNNotificationSoundName("a.caf")) != UNNotificationSound.default)
    }
}
#endif
