#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationAction`: a button shown with a notification's category.
open class UNNotificationAction: NSObject, NSCopying {
    private let storedIdentifier: String
    private let storedTitle: String
    private let storedOptions: UNNotificationActionOptions

    /// The identifier passed to the app when the user picks this action.
    open var identifier: String { storedIdentifier }
    /// The button's title.
    open var title: String { storedTitle }
    /// How the action behaves.
    open var options: UNNotificationActionOptions { storedOptions }

    init(storedIdentifier: String, title: String, options: UNNotificationActionOptions) {
        self.storedIdentifier = storedIdentifier
        self.storedTitle = title
        self.storedOptions = options
        super.init()
    }

    /// Makes an action.
    /// - Parameters:
    ///   - identifier: a unique identifier.
    ///   - title: the button's title.
    ///   - options: how the action behaves.
    public convenience init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.init(storedIdentifier: identifier, title: title, options: options)
    }

    /// Returns the receiver: an action is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Actions are equal when their class, identifier, title and options are.
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
