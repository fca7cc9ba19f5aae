#if !canImport(UserNotifications)
import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushExtensionHost
@_spi(RichPushInternal) import RichPushNotificationService
import RichPushTestSupport
import Testing
import UserNotificationsStandIn

/// What the content extension gets: a category per media kind, payload buttons that keep it (a
/// button slot it lists), and never a file iOS would drop after the hand-over.
///
/// Serialized: the tests read and write the process-wide `UNUserNotificationCenter.current()`; and
/// never beside another suite that writes it (`.sharedNotificationCenter`).
@Suite(.serialized, .sharedNotificationCenter) struct MediaCategoryThroughHostTests {
    /// The categories the example content extension lists (its Info.plist).
    static func contentExtensionCategories() throws -> [String] {
        let url = Fixtures.packageRoot.appendingPathComponent("Examples/NotificationContentExtension/Info.plist")
        let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any]
        let attributes = (plist?["NSExtension"] as? [String: Any])?["NSExtensionAttributes"] as? [String: Any]
        return try #require(attributes?["UNNotificationExtensionCategory"] as? [String])
    }

    /// A payload with media under `image-url` and, optionally, buttons.
    static func payload(media: String, buttons ids: [String] = []) throws -> Data {
        var object: [String: Any] = ["aps": ["alert": ["title": "t", "body": "b"], "mutable-content": 1], "image-url": media]
        if !ids.isEmpty { object["buttons"] = ids.map { ["id": $0, "title": $0.uppercased()] } }
        return try JSONSerialization.data(withJSONObject: object)
    }

    static func run(_ payload: Data, configuration: RichPushConfiguration? = nil) async throws -> HostReport {
        let store = try Fixtures.temporaryDirectory("richpush-host-store")
        let folder = try Fixtures.temporaryDirectory("richpush-extension")
        defer {
            try? FileManager.default.removeItem(at: store)
            try? FileManager.default.removeItem(at: folder)
        }
        var configuration = configuration ?? RichPushConfiguration()
        configuration.logger = .disabled
        configuration.allowedHTTPHosts = ["127.0.0.1"]
        configuration.attachmentsDirectory = folder
        // Generous: a loaded machine held a local download past 10 s (no attachment, no category);
        // neither the deadline nor the budget is what these tests check.
        configuration.deadline = 25
        return await ExtensionHost(storeDirectory: store, budget: 30).run(
            PushRequest.make(payload: payload), on: PatientService(configuration: configuration))
    }

    @Test(arguments: [("photo.jpg", "image"), ("clip.mp4", "video"), ("chime.mp3", "audio"), ("chime.wav", "audio")])
    func eachMediaKindGetsItsCategoryWhichTheContentExtensionLists(file: String, category: String) async throws {
        let server = try await BridgeMediaServer.get()
        let report = try await Self.run(try Self.payload(media: server.url("/media/\(file)")))
        #expect(report.shown.attachments.count == 1)
        #expect(report.shown.categoryIdentifier == category)
        #expect(try Self.contentExtensionCategories().contains(category))
    }

    /// Buttons on a video push: the video's button slot, registered with the buttons when shown,
    /// and in the content extension's list, so the video still plays there.
    @Test func buttonsOnAMediaPushKeepTheContentExtension() async throws {
        let server = try await BridgeMediaServer.get()
        let ids = ["watch-\(UUID().uuidString.prefix(8))", "later"]
        let report = try await Self.run(try Self.payload(media: server.url("/media/clip.mp4"), buttons: ids))
        #expect(report.shown.attachments.map(\.type) == ["public.mpeg-4"])
        let category = report.shown.categoryIdentifier
        #expect(RichPushCategoryDescription.buttonSlot(of: category)?.base == "video", "\(category)")
        #expect(report.shown.registeredCategoryActions == ids)
        #expect(try Self.contentExtensionCategories().contains(category))
    }

    /// Issue 30, the carousel: a media key holding a list gives the content extension every
    /// attachment, in the payload's order, under the first one's category (with the payload's
    /// buttons, its button slot) — a category the example content extension lists, so its
    /// carousel pages through them all.
    @Test func severalAttachmentsReachTheCarouselUnderACategoryItLists() async throws {
        let server = try await BridgeMediaServer.get()
        let ids = ["reply-\(UUID().uuidString.prefix(8))"]
        let object: [String: Any] = [
            "aps": ["alert": ["title": "Album", "body": "3 new photos"], "mutable-content": 1],
            "media-url": ["photo.jpg", "logo.png", "anim.gif"].map { server.url("/media/\($0)") },
            "buttons": ids.map { ["id": $0, "title": "Reply"] },
        ]
        let report = try await Self.run(try JSONSerialization.data(withJSONObject: object))
        #expect(report.shown.attachments.map(\.type) == ["public.jpeg", "public.png", "com.compuserve.gif"])
        #expect(report.shown.attachments.map(\.bytes) == [89_696, 1_906, 900])
        let category = report.shown.categoryIdentifier
        #expect(RichPushCategoryDescription.buttonSlot(of: category)?.base == "image", "\(category)")
        #expect(try Self.contentExtensionCategories().contains(category))
        #expect(report.shown.registeredCategoryActions == ids)
        let single = try await Self.run(try Self.payload(media: server.url("/media/photo.jpg")))
        #expect(single.shown.attachments.count == 1)
        #expect(single.shown.categoryIdentifier == "image")
    }

    /// The content extension's list is exactly what the example service extension's settings make.
    @Test func theExampleContentExtensionListsEveryCategoryTheExampleServiceExtensionSets() throws {
        let url = Fixtures.packageRoot.appendingPathComponent("Examples/NotificationServiceExtension/Info.plist")
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        let settings = RichPushSettings.read(infoDictionary: plist)
        #expect(Set(try Self.contentExtensionCategories()) == Set(settings.pipeline.contentExtensionCategories))
        #expect(settings.pipeline.contentExtensionCategories.count == 15)
    }

    /// Two sets of buttons that prefer the same slot get two slots; the same buttons again reuse
    /// theirs; when every slot holds other buttons, the preferred one is replaced.
    @Test func buttonSetsNeverShareASlot() async throws {
        // A base of its own: other suites register in the same process-wide center meanwhile.
        let base = "slots-\(UUID().uuidString.prefix(8))"
        func buttons(_ tag: String) -> [RichPushButton] { [RichPushButton(identifier: "b-\(tag)", title: tag)] }
        let slots = 4
        // Five button sets that all prefer one slot (found by trying tags).
        let preferred = RichPushCategoryDescription.preferredButtonSlot(for: buttons("0"), slots: slots)
        let tags = (0..<1000).map(String.init).filter { RichPushCategoryDescription.preferredButtonSlot(for: buttons($0), slots: slots) == preferred }
            .prefix(5)
        #expect(tags.count == 5)
        var registered: [String] = []
        for tag in tags.prefix(4) {
            let description = RichPushCategoryDescription(
                identifier: RichPushCategoryDescription.buttonSlotIdentifier(base: base, slot: preferred), buttons: buttons(tag))
            registered.append(await RichPushCategoryRegistry.register(description, slots: slots))
        }
        #expect(Set(registered).count == 4)
        #expect(registered[0] == "\(base).buttons.\(preferred)")
        // The same buttons again: the same slot.
        let again = RichPushCategoryDescription(identifier: "\(base).buttons.\(preferred)", buttons: buttons(tags[tags.startIndex + 2]))
        #expect(await RichPushCategoryRegistry.register(again, slots: slots) == registered[2])
        // A fifth set: every slot is taken, the preferred one is replaced.
        let fifth = RichPushCategoryDescription(identifier: "\(base).buttons.\(preferred)", buttons: buttons(tags[tags.startIndex + 4]))
        #expect(await RichPushCategoryRegistry.register(fifth, slots: slots) == "\(base).buttons.\(preferred)")
        let center = await UNUserNotificationCenter.current().notificationCategories()
        #expect(center.first { $0.identifier == "\(base).buttons.\(preferred)" }?.actions.map(\.identifier) == ["b-\(tags[tags.startIndex + 4])"])
        #expect(center.filter { $0.identifier.hasPrefix("\(base).buttons.") }.count == 4)
    }

    /// iOS does not read the bytes when the attachment is made (the stand-in neither): RichPush's
    /// own check refuses the truncated file first, so the notification is never reported
    /// `media_attached` for a picture iOS would drop.
    @Test func aTruncatedPictureIsRefusedBeforeTheHandOver() async throws {
        let server = try await BridgeMediaServer.get()
        let report = try await Self.run(try Self.payload(media: server.url("/truncated/photo.jpg?bytes=50000")))
        #expect(report.handlerCalls == 1)
        #expect(report.shown.attachments.isEmpty)
        #expect(report.shown.categoryIdentifier == "")
        #expect(report.shown.body == "b")
    }
}
#endif
