#if !canImport(UserNotifications)
import Foundation
import IntentsStandIn
@_spi(RichPushInternal) import RichPushExtension
import RichPushExtensionHost
@_spi(RichPushInternal) import RichPushNotificationService
import RichPushTestSupport
import Testing
import UserNotificationsStandIn

/// Issue 30: a message from a person through the real `RichPushServiceExtension` in the host that
/// plays iOS: the content handed over is updated from an `INSendMessageIntent` whose sender and
/// group carry the avatars as data (what iOS draws), and each way the system can refuse it falls
/// back to the normal notification with the reason on the receipt.
///
/// `.serialized`: the host's answers to intents are process-wide, as the system's are.
@Suite(.serialized) struct CommunicationThroughHostTests {
    struct Setup {
        let server: MediaServer
        let store: URL
        var configuration: RichPushConfiguration

        init() async throws {
            server = try await BridgeMediaServer.get()
            store = try Fixtures.temporaryDirectory("richpush-host-store")
            configuration = RichPushConfiguration()
            configuration.allowedHTTPHosts = ["127.0.0.1"]
            configuration.attachmentsDirectory = try Fixtures.temporaryDirectory("richpush-extension")
            configuration.deadline = 25
        }

        func cleanUp() {
            try? FileManager.default.removeItem(at: store)
            try? FileManager.default.removeItem(at: configuration.attachmentsDirectory)
        }

        func request(sender avatar: String, group: (name: String, avatar: String)? = nil, media: String? = nil) throws -> UNNotificationRequest {
            var json: [String: Any] = [
                "aps": ["alert": ["title": group?.name ?? "Ada Lovelace", "body": "Tea at five?"], "mutable-content": 1],
                "push_id": "m-host",
                "sender": ["id": "u-42", "name": "Ada Lovelace", "avatar": server.url(avatar)],
            ]
            if let group { json["conversation"] = ["id": "c-7", "name": group.name, "avatar": server.url(group.avatar), "group": true] }
            if let media { json["image-url"] = server.url(media) }
            return PushRequest.make(payload: try JSONSerialization.data(withJSONObject: json))
        }

        func run(_ request: UNNotificationRequest, support: ExtensionHost.CommunicationSupport = .allowed) async -> (HostReport, RichPushResult?) {
            let service = RecordingService(configuration: configuration)
            var host = ExtensionHost(storeDirectory: store, budget: 30)
            host.communication = support
            let report = await host.run(request, on: service)
            return (report, service.delivered)
        }
    }

    @Test func aOneToOneMessageIsShownWithTheSendersAvatarAsData() async throws {
        let setup = try await Setup()
        defer { setup.cleanUp() }
        let (report, result) = await setup.run(try setup.request(sender: "/media/photo.jpg"))
        let shown = try #require(report.shown.communication)
        #expect(shown.senderName == "Ada Lovelace")
        #expect(shown.senderID == "u-42")
        #expect(shown.conversationID == "u-42")
        #expect(!shown.isGroup)
        #expect(shown.groupName == nil)
        #expect(shown.senderAvatar?.bytes == 89_696)
        #expect(shown.senderAvatar?.drawable == true)
        #expect(report.faults.isEmpty, "\(report.faults)")
        #expect(report.shown.body == "Tea at five?")
        #expect(result?.details.communication?.shown == true)
    }

    @Test func aGroupMessageIsShownUnderTheGroupsNameAndAvatar() async throws {
        let setup = try await Setup()
        defer { setup.cleanUp() }
        let (report, _) = await setup.run(
            try setup.request(sender: "/media/photo.jpg", group: ("Engine room", "/media/logo.png"), media: "/media/progressive.jpg"))
        let shown = try #require(report.shown.communication)
        #expect(shown.isGroup)
        #expect(shown.groupName == "Engine room")
        #expect(shown.conversationID == "c-7")
        #expect(shown.groupAvatar?.bytes == 1_906)
        #expect(shown.groupAvatar?.format == .png)
        // The media is attached as well: a message with a picture.
        #expect(report.shown.attachments.count == 1)
        #expect(report.faults.isEmpty, "\(report.faults)")
    }

    @Test func anAppWithoutTheCapabilityGetsTheNormalNotificationAndIntentFailed() async throws {
        let setup = try await Setup()
        defer { setup.cleanUp() }
        let (report, result) = await setup.run(try setup.request(sender: "/media/photo.jpg"), support: .notAllowed)
        #expect(report.shown.communication == nil)
        #expect(report.handlerCalls == 1)
        #expect(result?.reason == .intentFailed)
        #expect(result?.details.communication?.note?.contains("no Communication Notifications capability") == true)
    }

    @Test func aRefusedDonationGetsTheNormalNotificationAndIntentFailed() async throws {
        let setup = try await Setup()
        defer { setup.cleanUp() }
        let (report, result) = await setup.run(try setup.request(sender: "/media/photo.jpg"), support: .donationRefused("Siri is off"))
        #expect(report.shown.communication == nil)
        #expect(result?.reason == .intentFailed)
        #expect(result?.details.communication?.note?.contains("Siri is off") == true)
    }

    @Test func aFailedAvatarGetsTheNormalNotificationAndAvatarFailed() async throws {
        let setup = try await Setup()
        defer { setup.cleanUp() }
        let (report, result) = await setup.run(try setup.request(sender: "/404json"))
        #expect(report.shown.communication == nil)
        #expect(report.shown.title == "Ada Lovelace")
        #expect(result?.reason == .avatarFailed)
    }
}
#endif
