// RichPushAppSupport.swift — what the app does for RichPush, in one place.
//
// - `registerCategories()`: adds the app's categories to those registered, never replacing the
//   button categories the extension registered (image.buttons.1 …, richpush.b.<hash>);
// - `flushReceipts()`: sends the receipts the extension queued and could not send (offline,
//   server down), with backoff, from the App Group;
// - `resetBadge()`: sets the shared badge counter (payload "badge_op") and the icon to 0;
// - `reportOpened(userInfo:)`: queues and sends `event=opened` with the push's stable receipt_id
//   (the same id as the extension's `delivered`), so a tap is counted once even when the app
//   is offline at that moment: the queue keeps it for the next flush.
//
// The target links the RichPush package's `RichPushExtension` library (the receipt queue, the
// badge counter, the payload key paths, the extension's settings reader).
import Foundation
import RichPushExtension
import UserNotifications

/// The app side of RichPush, with the values of the service extension's Info.plist.
struct RichPushAppSupport: Sendable {
    /// `ReceiptsURL` of the extension's Info.plist; `nil` sends nothing.
    let receiptsURL: URL?
    /// `AppGroupIdentifier` of the extension's Info.plist; `nil` keeps no shared state.
    let appGroupIdentifier: String?
    /// The extension's `PushIDKeyPaths` before the defaults (as the extension reads them).
    let pushIDKeyPaths: [RichPushPayloadKeyPath]

    /// The values of the Notification Service Extension embedded in the app (`PlugIns/*.appex`),
    /// read by the code the extension itself runs (`RichPushSettings`): they cannot drift.
    /// - Parameter app: the app's bundle.
    /// - Returns: the values; without an embedded extension, no receipts URL and no App Group.
    static func fromServiceExtension(in app: Bundle = .main) -> RichPushAppSupport {
        guard let settings = RichPushSettings.serviceExtension(in: app) else {
            print("RichPush: no Notification Service Extension in \(app.bundlePath)/PlugIns; opened receipts are not sent")
            return RichPushAppSupport(receiptsURL: nil, appGroupIdentifier: nil, pushIDKeyPaths: RichPushPayloadKeyPath.defaultPushIDKeyPaths)
        }
        for problem in settings.problems { print("RichPush: the extension's Info.plist: \(problem)") }
        return RichPushAppSupport(
            receiptsURL: settings.pipeline.receiptsURL, appGroupIdentifier: settings.appGroupIdentifier, pushIDKeyPaths: settings.pipeline.pushIDKeyPaths)
    }

    /// The shared state directory (receipt queue, install id, badge counter), as the extension's.
    var stateDirectory: URL? {
        appGroupIdentifier.flatMap { FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: $0) }?
            .appendingPathComponent(RichPushConfiguration.SharedContainerLayout.state, isDirectory: true)
    }

    /// The app's own categories: one per media kind, each with an "Open" action. Payload buttons
    /// on media pushes live in the extension's button slots (image.buttons.1 …), which the
    /// content extension lists too.
    static func appCategories() -> Set<UNNotificationCategory> {
        let open = UNNotificationAction(identifier: "open", title: "Open", options: [.foreground])
        return Set(["image", "video", "audio"].map { UNNotificationCategory(identifier: $0, actions: [open], intentIdentifiers: [], options: []) })
    }

    /// Registers the app's categories next to those already registered (the extension's button
    /// categories stay): read, merge, write.
    /// - Parameter center: the notification center.
    static func registerCategories(in center: UNUserNotificationCenter) async {
        let ours = appCategories()
        let registered = await center.notificationCategories()
        let kept = registered.filter { category in !ours.contains { $0.identifier == category.identifier } }
        center.setNotificationCategories(kept.union(ours))
    }

    /// Sends the receipts queued by the extension; call when the app becomes active.
    func flushReceipts() async {
        guard let stateDirectory else { return }
        do {
            let report = try await RichPushReceiptDelivery(directory: stateDirectory).flushPendingReceipts(timeout: 10)
            if report.remaining > 0 { print("RichPush: \(report.remaining) receipts still queued") }
        } catch {
            print("RichPush: receipt queue unreadable: \(error)")
        }
    }

    /// Sets the badge to 0: the shared counter the extension applies `badge_op` to, and the icon.
    /// - Parameter center: the notification center.
    func resetBadge(in center: UNUserNotificationCenter) async {
        if let stateDirectory { try? RichPushBadgeCounter(directory: stateDirectory).resetBadge() }
        try? await center.setBadgeCount(0)
    }

    /// Queues and sends `event=opened` for the notification with this payload.
    ///
    /// Does nothing when there is no receipts URL or no push id. Never throws: a lost `opened`
    /// receipt must not disturb the app; one that cannot be sent now stays queued.
    /// - Parameter userInfo: the notification's payload (`content.userInfo`).
    func reportOpened(userInfo: [AnyHashable: Any]) async {
        guard let receiptsURL, let stateDirectory, let payload = RichPushJSONValue(any: userInfo) else { return }
        // The same lookup as the extension's (OneSignal's custom.i, Airship's _, …), so `opened`
        // counts for the same push as `delivered`.
        guard let pushID = RichPushPayloadLookup.pushID(in: payload, keyPaths: pushIDKeyPaths)?.value else { return }
        do {
            let delivery = RichPushReceiptDelivery(directory: stateDirectory)
            let receipt = RichPushReceipt(pushID: pushID, event: .opened, vendor: RichPushVendor.recognise(payload)?.identifier)
            let (status, http) = try await delivery.submit(receipt, to: receiptsURL, timeout: 10)
            if status == .failed { print("RichPush: opened receipt for \(pushID) queued (HTTP \(http.map(String.init) ?? "none"))") }
        } catch {
            print("RichPush: opened receipt for \(pushID) not queued: \(error)")
        }
    }
}
