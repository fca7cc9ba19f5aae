#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationCategoryOptions`: how a category's notifications behave.
public struct UNNotificationCategoryOptions: OptionSet, Sendable {
    /// The bits.
    public let rawValue: UInt
    /// Makes options from bits.
    /// - Parameter rawValue: the bits (Apple's values).
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Tell the app's delegate when the user dismisses the notification.
    public static var customDismissAction: UNNotificationCategoryOptions { UNNotificationCategoryOptions(rawValue: 1 << 0) }
    /// Allow the category in CarPlay.
    public static var allowInCarPlay: UNNotificationCategoryOptions { UNNotificationCategoryOptions(rawValue: 1 << 1) }
    /// Show the title when previews are hidden.
    public static var hiddenPreviewsShowTitle: UNNotificationCategoryOptions { UNNotificationCategoryOptions(rawValue: 1 << 2) }
    /// Show the subtitle when previews are hidden.
    public static var hiddenPreviewsShowSubtitle: UNNotificationCategoryOptions { UNNotificationCategoryOptions(rawValue: 1 << 3) }
}
#endif
