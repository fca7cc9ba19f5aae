// NotificationService.swift — the whole Notification Service Extension.
//
// Xcode: File → New → Target → iOS → Notification Service Extension ("NotificationService"),
// then add the RichPush package's `RichPushNotificationService` library to this target and
// replace the template's file with this one.
//
// RichPushNotificationService does what the template leaves to you, for every request on its own:
// - builds the best-attempt text before any network work (empty body → DefaultBody);
// - finds the media URL (aps.alert.image, image-url, attachment-url, url, media-url,
//   fcm_options.image — or your MediaKeyPaths), downloads it over https to a file, streaming,
//   within Deadline seconds, checks the type from its first bytes and Apple's size limits
//   (image 10 MB, audio 5 MB, video 50 MB);
// - attaches it as a UNNotificationAttachment with its UTType (and sets the category `image`,
//   so the Notification Content Extension shows it);
// - posts a receipt (push_id=…&event=delivered&outcome=…) to ReceiptsURL;
// - calls the content handler exactly once, and on serviceExtensionTimeWillExpire() hands over
//   every request still in flight with its best attempt.
// Its settings come from the RichPush dictionary in this target's Info.plist.
import RichPushNotificationService
import UserNotifications

final class NotificationService: RichPushNotificationService {}

// To adjust the content before it is shown, override willDeliver (it runs once per request,
// before the deadline, on a background thread):
//
// final class NotificationService: RichPushNotificationService {
//     override func willDeliver(_ content: UNMutableNotificationContent, for request: UNNotificationRequest,
//                               result: PipelineResult) {
//         if result.outcome == .mediaAttached { content.subtitle = "📷" }
//     }
// }
//
// To configure it in code instead of Info.plist, override `configuration`:
//
//     override var configuration: PipelineConfiguration {
//         var c = PipelineConfiguration()
//         c.receiptsURL = URL(string: "https://stats.example.com/v1/receipts")
//         c.deadline = 20
//         return c
//     }
