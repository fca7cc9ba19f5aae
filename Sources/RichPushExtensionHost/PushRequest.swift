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
    /// (empty text): the extension must cope with it. Bytes that are not a JSON object give
    /// `userInfo` `{RichPushNotificationPayload.unreadablePayloadKey: "<the parse error>"}`, so the
    /// pipeline reports `invalid_payload` rather than seeing an empty payload.
    /// - Parameters:
    ///   - payload: the payload bytes (a JSON object as APNs delivers it).
    ///   - identifier: the request identifier (iOS: the `apns-collapse-id` or a fresh UUID).
    /// - Returns: the request.
    public static func make(payload: Data, identifier: String = UUID().uuidString) -> UNNotificationRequest {
        let content = UNMutableNotificationContent()
        if let object = try? JSONSerialization.jsonObject(with: payload, options: [.fragmentsAllowed]) as? [AnyHashable: Any] {
            content.userInfo = object
        } else {
            // Not a JSON object: `userInfo` cannot hold the bytes, so it says why, and the
            // pipeline delivers the original with invalid_payload (never an empty payload `{}`).
            content.userInfo = [RichPushNotificationPayload.unreadablePayloadKey: problem(with: payload)]
        }
        if let json = try? RichPushJSONValue.parse(payload), let parsed = try? RichPushNotificationPayload(json: json) {
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

    /// Why payload bytes are not a JSON object, in one sentence.
    /// - Parameter payload: the bytes.
    /// - Returns: the parse error, or what the JSON is instead of an object.
    public static func problem(with payload: Data) -> String {
        let json: RichPushJSONValue
        do { json = try RichPushJSONValue.parse(payload) } catch {
            if payload.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
                return "the payload is empty; it must be a JSON object like {\"aps\": {\"alert\": \"Hello\"}}"
            }
            return (error as? RichPushError)?.message ?? String(describing: error)
        }
        do { _ = try RichPushNotificationPayload(json: json) } catch {
            return (error as? RichPushError)?.message ?? String(describing: error)
        }
        return "the payload is not a JSON object; it must look like {\"aps\": {…}}"
    }
}
#endif
