#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationCategory`: a kind of notification (`aps.category`) with
/// its actions; a Notification Content Extension is chosen by it (`UNNotificationExtensionCategory`).
open class UNNotificationCategory: NSObject, NSCopying {
    private let storedIdentifier: String
    private let storedActions: [UNNotificationAction]
    private let storedIntentIdentifiers: [String]
    private let storedOptions: UNNotificationCategoryOptions

    /// The identifier, matched against `aps.category`.
    open var identifier: String { storedIdentifier }
    /// The actions, in display order.
    open var actions: [UNNotificationAction] { storedActions }
    /// SiriKit intent identifiers.
    open var intentIdentifiers: [String] { storedIntentIdentifiers }
    /// How the category's notifications behave.
    open var options: UNNotificationCategoryOptions { storedOptions }

    init(storedIdentifier: String, actions: [UNNotificationAction], intentIdentifiers: [String], options: UNNotificationCategoryOptions) {
        self.storedIdentifier = storedIdentifier
        self.storedActions = actions
        self.storedIntentIdentifiers = intentIdentifiers
        self.storedOptions = options
        super.init()
    }

    /// Makes a category.
    /// - Parameters:
    ///   - identifier: the category identifier, e.g. `image`; never empty.
    ///   - actions: the actions (the first two show when space is short).
    ///   - intentIdentifiers: SiriKit intent identifiers.
    ///   - options: how the notifications behave.
    public convenience init(
        identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
        options: UNNotificationCategoryOptions = []
    ) {
        self.init(storedIdentifier: identifier, actions: actions, intentIdentifiers: intentIdentifiers, options: options)
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
