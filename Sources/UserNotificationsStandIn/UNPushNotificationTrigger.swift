#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNPushNotificationTrigger`: the trigger of every remote notification.
open class UNPushNotificationTrigger: UNNotificationTrigger {
    /// Makes a push trigger; on iOS only the system makes these (here, the Linux host).
    package init() {
        super.init(repeats: false)
    }
}
#endif
