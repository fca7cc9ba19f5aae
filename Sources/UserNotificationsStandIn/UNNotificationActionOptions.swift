#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationActionOptions`: how an action behaves.
public struct UNNotificationActionOptions: OptionSet, Sendable {
    /// The bits.
    public let rawValue: UInt
    /// Makes options from bits.
    /// - Parameter rawValue: the bits (Apple's values).
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The device must be unlocked.
    public static var authenticationRequired: UNNotificationActionOptions { UNNotificationActionOptions(rawValue: 1 << 0) }
    /// Shown as destructive (red).
    public static var destructive: UNNotificationActionOptions { UNNotificationActionOptions(rawValue: 1 << 1) }
    /// Launches the app in the foreground.
    public static var foreground: UNNotificationActionOptions { UNNotificationActionOptions(rawValue: 1 << 2) }
}
#endif
