#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationContentProviding`: what a notification's content can be
/// updated from (`UNNotificationContent.updating(from:)`); `INSendMessageIntent` is one.
public protocol UNNotificationContentProviding: NSObjectProtocol {}
#endif
