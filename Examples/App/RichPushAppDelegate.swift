// RichPushAppDelegate.swift — the app side of rich notifications with RichPush, as an application
// delegate with no `@main` of its own, so it goes into either Xcode 16 app template unchanged:
//
// SwiftUI template ("App" → Interface: SwiftUI): add one line to the template's App struct:
//
//     @main
//     struct MyApp: App {
//         @UIApplicationDelegateAdaptor(RichPushAppDelegate.self) var richPush   // ← the one line
//         var body: some Scene { WindowGroup { ContentView() } }
//     }
//
// UIKit template ("App" → Interface: Storyboard): the template's AppDelegate keeps its `@main`;
// give it a RichPushAppDelegate and forward three calls:
//
//     @main
//     class AppDelegate: UIResponder, UIApplicationDelegate {
//         let richPush = RichPushAppDelegate()
//         func application(_ application: UIApplication,
//                          didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
//             richPush.application(application, didFinishLaunchingWithOptions: launchOptions)
//         }
//         func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
//             richPush.application(application, didRegisterForRemoteNotificationsWithDeviceToken: deviceToken)
//         }
//         func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error) {
//             richPush.application(application, didFailToRegisterForRemoteNotificationsWithError: error)
//         }
//         // … the template's scene session methods stay as they are.
//     }
//
// What it does:
// 1. ask permission to show alerts, sounds and badges;
// 2. register for remote notifications and print the device token as hex (what your provider,
//    e.g. `richpush send`, needs);
// 3. register the app's categories (image, video, audio) next to those already registered;
// 4. each time the app becomes active: send the receipts the extension queued, reset the badge;
// 5. when the user taps a notification, queue and send event=opened with the push's stable
//    receipt_id, so the stats server counts sent → delivered → opened for each push_id.
//
// The receipts URL, App Group and push id keys come from the service extension's own Info.plist
// (RichPush dictionary) inside the app bundle, so the app and the extension cannot disagree.
// The target needs the Push Notifications capability (aps-environment entitlement), the same
// App Group as the extension, and links the RichPush package's `RichPushExtension` library.
import RichPushExtension
import UIKit
import UserNotifications

/// RichPush's application delegate: permission, device token, categories, receipts, taps.
final class RichPushAppDelegate: NSObject, UIApplicationDelegate, UNUserNotificationCenterDelegate {
    /// The extension's settings (ReceiptsURL, AppGroupIdentifier, PushIDKeyPaths), read from its Info.plist.
    private let richPush = RichPushAppSupport.fromServiceExtension()
    private var becameActive: (any NSObjectProtocol)?

    @discardableResult
    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil
    ) -> Bool {
        let center = UNUserNotificationCenter.current()
        // Set the delegate before launch finishes, or a tap that launched the app is missed.
        center.delegate = self

        // Each time the app becomes active (with or without scenes): send the receipts the
        // extension queued, reset the badge.
        let richPush = richPush
        becameActive = NotificationCenter.default.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main) { _ in
            Task {
                await richPush.flushReceipts()
                await richPush.resetBadge(in: UNUserNotificationCenter.current())
            }
        }

        Task { @MainActor in
            await RichPushAppSupport.registerCategories(in: UNUserNotificationCenter.current())
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
    // (Swift 6 mode); they only read the Sendable `richPush`.

    /// Shows notifications while the app is in the foreground too (banner, sound, badge).
    nonisolated func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        [.banner, .list, .sound, .badge]
    }

    /// The user tapped the notification (or one of its actions): report `event=opened`.
    nonisolated func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        guard response.actionIdentifier != UNNotificationDismissActionIdentifier else { return }
        await richPush.reportOpened(userInfo: response.notification.request.content.userInfo)
    }
}
