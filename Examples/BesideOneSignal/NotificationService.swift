// NotificationService.swift — OneSignal's Notification Service Extension with RichPush's display
// receipt added (iOS runs one service extension per app, so keep OneSignal's and add RichPush).
//
// This is OneSignal's documented extension class (OneSignal iOS SDK setup, "Add the
// Notification Service Extension") with two RichPush lines, marked `← RichPush`. OneSignal's SDK
// is not available to this repository's iOS type-check, so its two calls are comments here and
// the compiled fallback delivers the text; in your project:
//   1. add the RichPush package's `RichPushNotificationService` library to the extension target
//      (next to OneSignal's `OneSignalExtension`);
//   2. uncomment `import OneSignalExtension` and the two `OneSignalExtension.…` lines, and delete
//      the two fallback lines under them;
//   3. put the `RichPush` dictionary (ReceiptsURL, AppGroupIdentifier) in the extension's
//      Info.plist, as in Examples/NotificationServiceExtension/Info.plist.
// OneSignal attaches its own media (`att`); RichPush reports what is shown, with OneSignal's
// notification id (`custom.i`) as the push id and vendor=onesignal.
import RichPushNotificationService
import UserNotifications

// import OneSignalExtension

final class NotificationService: UNNotificationServiceExtension {
    private let richPush = RichPushCompanion()  // ← RichPush
    var contentHandler: ((UNNotificationContent) -> Void)?
    var receivedRequest: UNNotificationRequest?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let contentHandler = richPush.wrap(request, contentHandler: contentHandler)  // ← RichPush
        self.receivedRequest = request
        self.contentHandler = contentHandler
        self.bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)
        if let bestAttemptContent = bestAttemptContent {
            // OneSignalExtension.didReceiveNotificationExtensionRequest(request, with: bestAttemptContent, withContentHandler: contentHandler)
            contentHandler(bestAttemptContent)  // fallback without OneSignal's SDK: delete in your project
        }
    }

    override func serviceExtensionTimeWillExpire() {
        richPush.serviceExtensionTimeWillExpire()  // ← RichPush: hand over at once from now on
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent, let receivedRequest {
            // OneSignalExtension.serviceExtensionTimeWillExpireRequest(receivedRequest, with: bestAttemptContent)
            _ = receivedRequest  // fallback without OneSignal's SDK: delete in your project
            contentHandler(bestAttemptContent)
        }
    }
}
