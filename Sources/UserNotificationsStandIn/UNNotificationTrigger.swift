#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationTrigger`: the condition that delivers a notification.
open class UNNotificationTrigger: NSObject {
    /// Whether the trigger repeats (never for a push).
    public let repeats: Bool

    /// Makes a trigger.
    /// - Parameter repeats: whether the notification is scheduled again after delivery.
    public init(repeats: Bool) {
        self.repeats = repeats
        super.init()
    }
}
#endif
