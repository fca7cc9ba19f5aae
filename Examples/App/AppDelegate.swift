// AppDelegate.swift — the app side of rich notifications with RichPush.
//
// 1. ask permission to show alerts, sounds and badges;
// 2. register for remote notifications and print the device token as hex (what your provider,
//    e.g. `richpush send`, needs);
// 3. register the "image" category, which the Notification Content Extension shows;
// 4. when the user taps a notification, report event=opened to the receipts URL, so the stats
//    server can count sent → delivered → opened for each push_id.
//
// The target needs the Push Notifications capability (aps-environment entitlement) and links the
// RichPush package's `RichPushCore` library (for PayloadKeyPath and Receipt).
import RichPushCore
import UIKit
import UserNotifications

// If your app already has an AppDelegate (or a SwiftUI App with @UIApplicationDelegateAdaptor),
// copy the parts below into it instead.
@main
final class AppDelegate: UIResponder, UIApplicationDelegate, UNUserNotificationCenterDelegate {
    /// The same receipts URL as the extension's Info.plist `RichPush.ReceiptsURL`.
    private let receipts = OpenedReceiptReporter(receiptsURL: URL(string: "https://stats.example.com/v1/receipts"))

    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil
    ) -> Bool {
        let center = UNUserNotificationCenter.current()
        // Set the delegate before launch finishes, or a tap that launched the app is missed.
        center.delegate = self

        // The "image" category: RichPushNotificationService sets it when it attaches media, and
        // the Notification Content Extension (UNNotificationExtensionCategory = image) shows it.
        let open = UNNotificationAction(identifier: "open", title: "Open", options: [.foreground])
        let image = UNNotificationCategory(identifier: "image", actions: [open], intentIdentifiers: [], options: [])
        center.setNotificationCategories([image])

        Task { @MainActor in
            do {
                let granted = try await UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .sound, .badge])
                print("RichPush: notifications \(granted ? "allowed" : "not allowed")")
            } catch {
                print("RichPush: authorization failed: \(error)")
            }
            // Register even when alerts are not allowed: the token is still valid for the provider.
            UIApplication.shared.registerForRemoteNotifications()
        }
        return true
    }

    // MARK: Device token

    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        // APNs wants the token as lowercase hex: 32 bytes → 64 characters.
        let hex = deviceToken.map { String(format: "%02x", $0) }.joined()
        print("RichPush: device token \(hex)")
        // Send `hex` to your provider here (and again whenever it changes).
    }

    func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error) {
        // Typically: no Push Notifications capability, or the simulator without a paired device.
        print("RichPush: could not register for remote notifications: \(error)")
    }

    // MARK: UNUserNotificationCenterDelegate
    // `nonisolated`: UserNotifications calls these off the main actor with non-Sendable values
    // (Swift 6 mode); they only read the Sendable `receipts`.

    /// Shows notifications while the app is in the foreground too (banner, sound, badge).
    nonisolated func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        [.banner, .list, .sound, .badge]
    }

    /// The user tapped the notification (or one of its actions): report `event=opened`.
    nonisolated func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        guard response.actionIdentifier != UNNotificationDismissActionIdentifier else { return }
        await receipts.reportOpened(userInfo: response.notification.request.content.userInfo)
    }
}
