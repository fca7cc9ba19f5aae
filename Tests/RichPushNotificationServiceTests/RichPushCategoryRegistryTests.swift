#if !canImport(UserNotifications)
import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushExtensionHost
@_spi(RichPushInternal) import RichPushNotificationService
import RichPushTestSupport
import Testing
import UserNotificationsStandIn

/// Issue 6 in the bridge: payload buttons become a registered `UNNotificationCategory`, thumbnail
/// options become attachment options.
///
/// One at a time: these tests set and read the process-wide `UNUserNotificationCenter.current()`
/// categories, and one's `setNotificationCategories` would replace what the other registered; and
/// never beside another suite that writes them (`.sharedNotificationCenter`).
@Suite(.serialized, .sharedNotificationCenter) struct RichPushCategoryRegistryTests {
    static let reply = RichPushButton(
        identifier: "reply", title: "Reply", foreground: true, icon: "arrowshape.turn.up.left",
        textInput: .init(buttonTitle: "Send", placeholder: "Message"))
    static let delete = RichPushButton(identifier: "delete", title: "Delete", destructive: true, authenticationRequired: true)

    @Test func buttonsBecomeActionsWithTheirOptionsAndTextInput() throws {
        let category = RichPushCategoryRegistry.makeCategory(
            RichPushCategoryDescription(identifier: "richpush.b.test", buttons: [Self.reply, Self.delete]))
        #expect(category.identifier == "richpush.b.test")
        #expect(category.actions.map(\.identifier) == ["reply", "delete"])
        let input = try #require(category.actions[0] as? UNTextInputNotificationAction)
        #expect(input.textInputButtonTitle == "Send")
        #expect(input.textInputPlaceholder == "Message")
        #expect(input.options == [.foreground])
        #expect(!(category.actions[1] is UNTextInputNotificationAction))
        #expect(category.actions[1].options == [.destructive, .authenticationRequired])
    }

    @Test func mergingKeepsTheAppsCategoriesAndAtMostTheLimitOfOurs() {
        let app = UNNotificationCategory(identifier: "image", actions: [], intentIdentifiers: [], options: [])
        var registered: Set<UNNotificationCategory> = [app]
        for i in 0..<5 {
            registered = RichPushCategoryRegistry.merged(
                registered, adding: RichPushCategoryDescription(identifier: "richpush.b.\(i)", buttons: [Self.delete]), limit: 3)
        }
        #expect(registered.count == 4)
        #expect(registered.contains { $0.identifier == "image" })
        #expect(registered.contains { $0.identifier == "richpush.b.4" })
        // A payload naming the app's own category never replaces it.
        let clash = RichPushCategoryRegistry.merged(registered, adding: RichPushCategoryDescription(identifier: "image", buttons: [Self.reply]), limit: 3)
        #expect(clash.first { $0.identifier == "image" }?.actions.isEmpty == true)
    }

    @Test func thumbnailOptionsBecomeAttachmentOptions() throws {
        let options = RichPushThumbnailOptions.attachmentOptions(
            RichPushThumbnailOptions(clippingRect: .init(x: 0.25, y: 0, width: 0.5, height: 0.5), time: 2, hidden: true), typeHint: "public.mpeg-4")
        #expect(options[UNNotificationAttachmentOptionsTypeHintKey] as? String == "public.mpeg-4")
        let rect = try #require(options[UNNotificationAttachmentOptionsThumbnailClippingRectKey] as? [String: Double])
        #expect(rect == ["X": 0.25, "Y": 0, "Width": 0.5, "Height": 0.5])
        #expect(options[UNNotificationAttachmentOptionsThumbnailTimeKey] as? Double == 2)
        #expect(options[UNNotificationAttachmentOptionsThumbnailHiddenKey] as? Bool == true)
        #expect(RichPushThumbnailOptions.attachmentOptions(nil, typeHint: "public.png").count == 1)
    }

    /// A payload with buttons, and with media or not, each request its own marker.
    static func payload(buttons ids: [String], media: String? = nil) throws -> Data {
        var object: [String: Any] = [
            "aps": ["alert": ["title": "t", "body": "b"], "mutable-content": 1],
            "buttons": ids.enumerated().map { index, id in ["id": id, "title": "B\(index)", "destructive": index == 1] },
        ]
        if let media { object["image-url"] = media }
        return try JSONSerialization.data(withJSONObject: object)
    }

    static func service() -> PatientService {
        var configuration = RichPushConfiguration()
        configuration.logger = .disabled
        return PatientService(configuration: configuration)
    }

    /// No media: the pipeline delivers at once, yet iOS must find the buttons' category registered
    /// when it shows the notification (the host records the center's categories at that moment).
    @Test func aPayloadsButtonsAreRegisteredWhenTheNotificationWithoutMediaIsShown() async throws {
        let store = try Fixtures.temporaryDirectory("richpush-host-store")
        defer { try? FileManager.default.removeItem(at: store) }
        let ids = ["ok-\(UUID().uuidString)", "no"]
        let report = await ExtensionHost(storeDirectory: store, budget: 10)
            .run(PushRequest.make(payload: try Self.payload(buttons: ids)), on: Self.service())
        #expect(!report.shownOriginal)
        #expect(!report.expiryCalled)
        #expect(report.handlerCalls == 1)
        #expect(report.shown.categoryIdentifier.hasPrefix("richpush.b."))
        #expect(report.shown.registeredCategoryActions == ids)
        let registered = await UNUserNotificationCenter.current().notificationCategories()
        let category = try #require(registered.first { $0.identifier == report.shown.categoryIdentifier })
        #expect(category.actions.map(\.identifier) == ids)
        #expect(category.actions[1].options == [.destructive])
    }

    /// Overlapping requests on one instance, each with its own buttons: each is shown with its own
    /// category registered, and neither registration replaces the other's.
    @Test func overlappingRequestsWithDifferentButtonsEachGetTheirOwnCategory() async throws {
        let store = try Fixtures.temporaryDirectory("richpush-host-store")
        defer { try? FileManager.default.removeItem(at: store) }
        let sets = (0..<4).map { index in ["a\(index)-\(UUID().uuidString)", "b\(index)"] }
        let requests = try sets.map { ids in HostedRequest(PushRequest.make(payload: try Self.payload(buttons: ids)), startAfter: 0) }
        let reports = await ExtensionHost(storeDirectory: store, budget: 10).run(requests, on: Self.service())
        #expect(Set(reports.map(\.shown.categoryIdentifier)).count == sets.count)
        let registered = await UNUserNotificationCenter.current().notificationCategories()
        for (report, ids) in zip(reports, sets) {
            #expect(report.handlerCalls == 1)
            #expect(!report.shownOriginal)
            #expect(report.shown.registeredCategoryActions == ids, "shown after \(report.elapsedMs) ms as \(report.shown.categoryIdentifier)")
            #expect(
                registered.first { $0.identifier == report.shown.categoryIdentifier }?.actions.map(\.identifier) == ids,
                "registered: \(registered.map(\.identifier).sorted())")
        }
    }

    /// With media: the registration runs beside the download; the shown content has both the
    /// attachment and its buttons' category registered.
    @Test func aPayloadWithMediaAndButtonsIsShownWithTheAttachmentAndItsCategoryRegistered() async throws {
        let server = try await BridgeMediaServer.get()
        let ids = ["open-\(UUID().uuidString)", "dismiss"]
        let report = try await Self.runInHost(buttons: ids, media: server.url("/media/photo.jpg"), deadline: 10, budget: 20)
        #expect(report.handlerCalls == 1)
        #expect(!report.expiryCalled)
        #expect(report.shown.attachments.map(\.type) == ["public.jpeg"])
        #expect(report.shown.registeredCategoryActions == ids)
    }

    /// Media that never arrives: at expiry the text goes to iOS at once, with its buttons' category.
    ///
    /// The registration starts in `didReceive` and must have ended by expiry (at expiry nothing
    /// waits for it, by design): a 5 s budget, as a 1 s one was missed once on a loaded 2-core CI
    /// machine (the registration task not yet run after 1 s; iOS gives 30 s).
    @Test func atExpiryTheTextIsDeliveredAtOnceWithItsButtonsCategory() async throws {
        let server = try await BridgeMediaServer.get()
        let ids = ["later-\(UUID().uuidString)", "never"]
        let report = try await Self.runInHost(buttons: ids, media: server.url("/hang"), deadline: 25, budget: 5, expiryGrace: 1)
        #expect(report.expiryCalled)
        #expect(report.handlerCalls == 1)
        #expect(!report.shownOriginal)
        #expect(report.shown.attachments.isEmpty)
        #expect(report.shown.registeredCategoryActions == ids)
    }

    /// The stand-in center (in `StandInContentTests` before; here, serialized with the registry test).
    /// Adds to what is registered (other suites register in the same center meanwhile).
    @Test func registeredCategoriesComeBack() async {
        let reply = UNTextInputNotificationAction(
            identifier: "reply", title: "Reply", options: [], textInputButtonTitle: "Send", textInputPlaceholder: "…")
        let open = UNNotificationAction(identifier: "open", title: "Open", options: [.foreground])
        let name = "app-\(UUID().uuidString.prefix(8))"
        let category = UNNotificationCategory(identifier: name, actions: [open, reply], intentIdentifiers: [], options: [])
        let before = await UNUserNotificationCenter.current().notificationCategories()
        UNUserNotificationCenter.current().setNotificationCategories(before.union([category]))
        let categories = await UNUserNotificationCenter.current().notificationCategories()
        let found = categories.first { $0.identifier == name }
        #expect(found?.actions.map(\.identifier) == ["open", "reply"])
        #expect((found?.actions.last as? UNTextInputNotificationAction)?.textInputButtonTitle == "Send")
        let viaHandler = await withCheckedContinuation { continuation in
            UNUserNotificationCenter.current().getNotificationCategories { continuation.resume(returning: $0.map(\.identifier)) }
        }
        #expect(viaHandler.contains(name))
    }

    /// Runs one payload with buttons and a media URL through the real class in the Linux host.
    static func runInHost(
        buttons: [String], media: String, deadline: Double, budget: Double, expiryGrace: Double = 1
    ) async throws -> HostReport {
        let store = try Fixtures.temporaryDirectory("richpush-host-store")
        let folder = try Fixtures.temporaryDirectory("richpush-extension")
        defer {
            try? FileManager.default.removeItem(at: store)
            try? FileManager.default.removeItem(at: folder)
        }
        var configuration = RichPushConfiguration()
        configuration.logger = .disabled
        configuration.allowedHTTPHosts = ["127.0.0.1"]
        configuration.attachmentsDirectory = folder
        configuration.deadline = deadline
        return await ExtensionHost(storeDirectory: store, budget: budget, expiryGrace: expiryGrace).run(
            PushRequest.make(payload: try payload(buttons: buttons, media: media)),
            on: PatientService(configuration: configuration))
    }

}
#endif
