#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationTrigger`: the condition that delivers a notification.
///
/// Like Apple's, it has no public initializer: apps make its subclasses, the system makes
/// `UNPushNotificationTrigger`.
open class UNNotificationTrigger: NSObject, NSCopying {
    private let storedRepeats: Bool

    /// Whether the trigger repeats (never for a push).
    open var repeats: Bool { storedRepeats }

    /// Makes a trigger (for the Linux host, which plays the system).
    /// - Parameter repeats: whether the notification is scheduled again after delivery.
    package init(repeats: Bool) {
        storedRepeats = repeats
        super.init()
    }

    /// Returns the receiver: a trigger is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }
}
#endif
