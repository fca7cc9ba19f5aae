#if !canImport(UserNotifications)
import Foundation
import RichPushExtensionHost
@_spi(RichPushInternal) import RichPushNotificationService
import RichPushTestSupport
import Testing
import UserNotificationsStandIn

/// The one-line extension of Examples/NotificationServiceExtension, exactly as an app writes it.
final class NotificationService: RichPushServiceExtension {}

/// An app's whole extension is one line, and it runs on its Info.plist defaults.
@Suite struct OneLineExtensionTests {
    @Test func theOneLineSubclassDeliversTheBestAttemptForAPayloadWithoutMedia() async throws {
        let store = try Fixtures.temporaryDirectory("richpush-host-store")
        defer { try? FileManager.default.removeItem(at: store) }
        let service = NotificationService()
        // The test runner's Info.plist has no RichPush dictionary: the defaults.
        #expect(service.configuration.deadline == 25)
        #expect(service.configuration.mediaKeyPaths == RichPushPayloadKeyPath.defaultMediaKeyPaths)
        let request = PushRequest.make(payload: try Fixtures.payload("seed000-empty-body.json"))
        let report = await ExtensionHost(storeDirectory: store, budget: 30).run(request, on: service)
        #expect(report.handlerCalls == 1)
        #expect(!report.expiryCalled)
        #expect(report.faults.isEmpty)
        #expect(report.shown.attachments.isEmpty)
        // No default body unless the Info.plist sets one (article 000's "すぐに確認" is an example).
        #expect(report.shown.body == "")
        #expect(service.configuration.defaultBody == nil)
        #expect(report.shown.title == request.content.title)
    }

    @Test func textIOSAlreadyLocalizedIsKeptNotReplacedByTheDefaultBody() async throws {
        let store = try Fixtures.temporaryDirectory("richpush-host-store")
        defer { try? FileManager.default.removeItem(at: store) }
        // iOS resolves loc-key before the extension runs: the request's body is already text,
        // while the payload's alert has no body of its own.
        let content = UNMutableNotificationContent()
        content.title = "新着記事"
        content.body = "新しい記事をおすすめします"
        content.userInfo = ["aps": ["alert": ["title-loc-key": "NEW_TITLE", "loc-key": "NEW_ARTICLE"], "mutable-content": 1]]
        let request = UNNotificationRequest(identifier: "localized", content: content, trigger: UNPushNotificationTrigger())
        let report = await ExtensionHost(storeDirectory: store, budget: 30).run(request, on: NotificationService())
        #expect(report.handlerCalls == 1)
        #expect(report.shown.title == "新着記事")
        #expect(report.shown.body == "新しい記事をおすすめします")
    }
}
#endif
