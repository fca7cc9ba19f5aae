#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationCategory`: a kind of notification (`aps.category`) with
/// its actions; a Notification Content Extension is chosen by it (`UNNotificationExtensionCategory`).
open class UNNotificationCategory: NSObject, NSCopying {
    /// The identifier, matched against `aps.category`.
    public let identifier: String
    /// The actions, in display order.
    public let actions: [UNNotificationAction]
    /// SiriKit intent identifiers.
    public let intentIdentifiers: [String]
    /// How the category's notifications behave.
    public let options: UNNotificationCategoryOptions

    /// Makes a category.
    /// - Parameters:
    ///   - identifier: the category identifier, e.g. `image`; never empty.
    ///   - actions: the actions (the first two show when space is short).
    ///   - intentIdentifiers: SiriKit intent identifiers.
    ///   - options: how the notifications behave.
    public init(
        identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
        options: UNNotificationCategoryOptions = []
    ) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
        super.init()
    }

    /// Returns the receiver: a category is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Categories are equal when every field is.
    /// - Parameter object: the other object.
    /// - Returns: whether they are equal.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationCategory else { return false }
        return other.identifier == identifier && other.actions == actions && other.intentIdentifiers == intentIdentifiers
            && other.options == options
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int { identifier.hashValue }
}
#endif
