#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNTextInputNotificationAction`: an action that asks for text.
open class UNTextInputNotificationAction: UNNotificationAction {
    private let storedButtonTitle: String
    private let storedPlaceholder: String

    /// The title of the send button.
    open var textInputButtonTitle: String { storedButtonTitle }
    /// The placeholder in the text field.
    open var textInputPlaceholder: String { storedPlaceholder }

    init(
        storedIdentifier: String, title: String, options: UNNotificationActionOptions, buttonTitle: String, placeholder: String
    ) {
        storedButtonTitle = buttonTitle
        storedPlaceholder = placeholder
        super.init(storedIdentifier: storedIdentifier, title: title, options: options)
    }

    /// Makes a text input action.
    /// - Parameters:
    ///   - identifier: a unique identifier.
    ///   - title: the action's title.
    ///   - options: how the action behaves.
    ///   - textInputButtonTitle: the send button's title.
    ///   - textInputPlaceholder: the text field's placeholder.
    public convenience init(
        identifier: String, title: String, options: UNNotificationActionOptions = [], textInputButtonTitle: String,
        textInputPlaceholder: String
    ) {
        self.init(
            storedIdentifier: identifier, title: title, options: options, buttonTitle: textInputButtonTitle,
            placeholder: textInputPlaceholder)
    }

    /// Equal when the action fields and both texts are.
    /// - Parameter object: the other object.
    /// - Returns: whether they are equal.
    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? UNTextInputNotificationAction else { return false }
        return other.textInputButtonTitle == textInputButtonTitle && other.textInputPlaceholder == textInputPlaceholder
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int { identifier.hashValue }
}
#endif
