#if !canImport(UserNotifications)
import Foundation
import RichPushCore
import UserNotificationsStandIn

/// Builds the `UNNotificationRequest` iOS would hand an extension for a push payload.
public enum PushRequest {
    /// Makes the request for a payload: content from `aps` (alert, badge, sound, category,
    /// thread-id), the whole payload as `userInfo`, a push trigger.
    ///
    /// A payload that is not a JSON object, or whose `aps` is malformed, still gives a request
    /// (empty text, `userInfo` as far as it could be read): the extension must cope with it.
    /// - Parameters:
    ///   - payload: the payload bytes (a JSON object as APNs delivers it).
    ///   - identifier: the request identifier (iOS: the `apns-collapse-id` or a fresh UUID).
    /// - Returns: the request.
    public static func make(payload: Data, identifier: String = UUID().uuidString) -> UNNotificationRequest {
        let content = UNMutableNotificationContent()
        if let object = try? JSONSerialization.jsonObject(with: payload, options: [.fragmentsAllowed]) as? [AnyHashable: Any] {
            content.userInfo = object
        }
        if let json = try? JSONValue.parse(payload), let parsed = try? NotificationPayload(json: json) {
            content.title = parsed.alert?.title ?? ""
            content.subtitle = parsed.alert?.subtitle ?? ""
            content.body = parsed.alert?.body ?? ""
            content.categoryIdentifier = parsed.category ?? ""
            content.threadIdentifier = parsed.threadID ?? ""
            content.badge = parsed.badge.map { NSNumber(value: $0) }
            if let sound = parsed.sound {
                content.sound = sound == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName(sound))
            }
            content.launchImageName = parsed.alert?.launchImage ?? ""
        }
        return UNNotificationRequest(identifier: identifier, content: content, trigger: UNPushNotificationTrigger())
    }
}
#endif
