// NotificationService.swift — the whole Notification Service Extension.
//
// Xcode: File → New → Target → iOS → Notification Service Extension ("NotificationService"),
// then add the RichPush package's `RichPushNotificationService` library to this target and
// replace the template's file with this one.
//
// RichPushServiceExtension does what the template leaves to you, for every request on its own:
// - builds the best-attempt text before any network work (an empty body stays empty unless
//   the Info.plist sets DefaultBody);
// - finds the media URL (your MediaKeyPaths first, then aps.alert.image, image-url,
//   attachment-url, url, media-url, fcm_options.image), downloads it over https to a file,
//   streaming, within Deadline seconds, checks the type from its first bytes against Apple's
//   table, Apple's size limits (image 10 MB, audio 5 MB, video 50 MB) and the file's structure
//   (a truncated or corrupt file is refused with reason corrupt_media);
// - attaches it as a UNNotificationAttachment with its UTType and sets the category of its kind
//   (image, video, audio), which the Notification Content Extension lists; payload buttons
//   become a registered category (image.buttons.1…4 with media, so the content extension
//   still shows the media);
// - posts a receipt (push_id=…&event=delivered&outcome=…) to ReceiptsURL, through a queue in
//   the App Group that the app flushes;
// - calls the content handler exactly once, and on serviceExtensionTimeWillExpire() hands over
//   every request still in flight with its best attempt.
// Its settings come from the RichPush dictionary in this target's Info.plist.
import RichPushNotificationService
import UserNotifications

final class NotificationService: RichPushServiceExtension {}

// To adjust the content before it is shown, override willDeliver (it runs once per request,
// before the deadline, on a background thread):
//
// final class NotificationService: RichPushServiceExtension {
//     override func willDeliver(_ content: UNMutableNotificationContent, for request: UNNotificationRequest,
//                               result: RichPushResult) {
//         if result.outcome == .mediaAttached { content.subtitle = "📷" }
//     }
// }
//
// To configure it in code instead of Info.plist, override `configuration`:
//
//     override var configuration: RichPushConfiguration {
//         var c = RichPushConfiguration()
//         c.receiptsURL = URL(string: "https://stats.example.com/v1/receipts")
//         c.deadline = 20
//         return c
//     }
