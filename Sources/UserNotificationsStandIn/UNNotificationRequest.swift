#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationRequest`: a notification's identifier, content and trigger.
open class UNNotificationRequest: NSObject, NSCopying {
    /// The request's unique identifier (for a push, the `apns-collapse-id` or a system UUID).
    public let identifier: String
    /// The content, copied at creation (Apple's property is `copy`).
    public let content: UNNotificationContent
    /// What triggered the notification; a `UNPushNotificationTrigger` for a remote notification.
    public let trigger: UNNotificationTrigger?

    /// Makes a request.
    /// - Parameters:
    ///   - identifier: the request's unique identifier.
    ///   - content: the content; an immutable copy is kept.
    ///   - trigger: the trigger, `nil` to deliver at once.
    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = content.immutableCopy()
        self.trigger = trigger
        super.init()
    }

    /// Returns the receiver: a request is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
#endif
