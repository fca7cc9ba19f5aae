#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationRequest`: a notification's identifier, content and trigger.
open class UNNotificationRequest: NSObject, NSCopying {
    private let storedIdentifier: String
    private let storedContent: UNNotificationContent
    private let storedTrigger: UNNotificationTrigger?

    /// The request's unique identifier (for a push, the `apns-collapse-id` or a system UUID).
    open var identifier: String { storedIdentifier }
    /// The content, copied at creation (Apple's property is `copy`).
    open var content: UNNotificationContent { storedContent }
    /// What triggered the notification; a `UNPushNotificationTrigger` for a remote notification.
    open var trigger: UNNotificationTrigger? { storedTrigger }

    init(storedIdentifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.storedIdentifier = storedIdentifier
        self.storedContent = content.immutableCopy()
        self.storedTrigger = trigger
        super.init()
    }

    /// Makes a request.
    /// - Parameters:
    ///   - identifier: the request's unique identifier.
    ///   - content: the content; an immutable copy is kept.
    ///   - trigger: the trigger, `nil` to deliver at once.
    public convenience init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.init(storedIdentifier: identifier, content: content, trigger: trigger)
    }

    /// Returns the receiver: a request is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }
}
#endif
