#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationAction`: a button shown with a notification's category.
open class UNNotificationAction: NSObject, NSCopying {
    /// The identifier passed to the app when the user picks this action.
    public let identifier: String
    /// The button's title.
    public let title: String
    /// How the action behaves.
    public let options: UNNotificationActionOptions

    /// Makes an action.
    /// - Parameters:
    ///   - identifier: a unique identifier.
    ///   - title: the button's title.
    ///   - options: how the action behaves.
    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
        super.init()
    }

    /// Returns the receiver: an action is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Actions are equal when their identifier, title and options are.
    /// - Parameter object: the other object.
    /// - Returns: whether they are equal.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationAction, type(of: other) == type(of: self) else { return false }
        return other.identifier == identifier && other.title == title && other.options == options
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int { identifier.hashValue }
}
#endif
