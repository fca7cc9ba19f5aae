// NotificationService.swift — Braze's Notification Service Extension with RichPush's display
// receipt added (iOS runs one service extension per app, so keep Braze's and add RichPush).
//
// Braze's extension is a class to subclass (Braze Swift SDK, product `BrazeNotificationService`:
// `class NotificationService: BrazeNotificationService.NotificationService {}`). With RichPush:
//
//     import BrazeNotificationService
//     import RichPushNotificationService
//     import UserNotifications
//
//     final class NotificationService: BrazeNotificationService.NotificationService {
//         private let richPush = RichPushCompanion()
//         override func didReceive(_ request: UNNotificationRequest,
//                                  withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
//             super.didReceive(request, withContentHandler: richPush.wrap(request, contentHandler: contentHandler))
//         }
//         override func serviceExtensionTimeWillExpire() {
//             richPush.serviceExtensionTimeWillExpire()
//             super.serviceExtensionTimeWillExpire()
//         }
//     }
//
// Braze's SDK is not available to this repository's iOS type-check, so the class below has the
// same two overrides on Apple's base class, whose `didReceive` leaves the content to the
// subclass: RichPush then attaches Braze's image itself (`addsMedia`, key `ab.att.url`) and sends
// the receipt. Braze's message id key is not verified, so add a `push_id` key-value pair to the
// Braze message (apple_push.extra); without it the receipt is skipped with reason no_push_id.
// Put the `RichPush` dictionary in the extension's Info.plist, as in
// Examples/NotificationServiceExtension/Info.plist.
import RichPushNotificationService
import UserNotifications

final class NotificationService: UNNotificationServiceExtension {
    private let richPush = RichPushCompanion(addsMedia: true)

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        // With Braze: super.didReceive(request, withContentHandler: richPush.wrap(request, contentHandler: contentHandler))
        richPush.wrap(request, contentHandler: contentHandler)(request.content)
    }

    override func serviceExtensionTimeWillExpire() {
        richPush.serviceExtensionTimeWillExpire()
        super.serviceExtensionTimeWillExpire()
    }
}
