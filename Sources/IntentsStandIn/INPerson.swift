#if !canImport(Intents)
import Foundation

/// Stand-in for Apple's `INPerson`: a participant of a message (the sender, or the user).
open class INPerson: NSObject, NSCopying {
    private let storedHandle: INPersonHandle?
    private let storedNameComponents: PersonNameComponents?
    private let storedDisplayName: String
    private let storedImage: INImage?
    private let storedContactIdentifier: String?
    private let storedCustomIdentifier: String?
    private let storedIsMe: Bool
    private var storedSuggestionType: INPersonSuggestionType

    /// A person.
    /// - Parameters:
    ///   - personHandle: how to reach the person.
    ///   - nameComponents: the name's parts.
    ///   - displayName: the name shown.
    ///   - image: the avatar.
    ///   - contactIdentifier: the person's identifier in Contacts.
    ///   - customIdentifier: the app's own identifier of the person.
    ///   - isMe: whether it is the device's user.
    public init(
        personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?, contactIdentifier: String?,
        customIdentifier: String?, isMe: Bool
    ) {
        storedHandle = personHandle
        storedNameComponents = nameComponents
        storedDisplayName = displayName ?? personHandle.value ?? ""
        storedImage = image
        storedContactIdentifier = contactIdentifier
        storedCustomIdentifier = customIdentifier
        storedIsMe = isMe
        storedSuggestionType = .none
        super.init()
    }

    /// A person, with how Siri may suggest them.
    /// - Parameters:
    ///   - personHandle: how to reach the person.
    ///   - nameComponents: the name's parts.
    ///   - displayName: the name shown.
    ///   - image: the avatar.
    ///   - contactIdentifier: the person's identifier in Contacts.
    ///   - customIdentifier: the app's own identifier of the person.
    ///   - isMe: whether it is the device's user.
    ///   - suggestionType: how Siri may suggest them.
    public convenience init(
        personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?, contactIdentifier: String?,
        customIdentifier: String?, isMe: Bool, suggestionType: INPersonSuggestionType
    ) {
        self.init(
            personHandle: personHandle, nameComponents: nameComponents, displayName: displayName, image: image, contactIdentifier: contactIdentifier,
            customIdentifier: customIdentifier, isMe: isMe)
        storedSuggestionType = suggestionType
    }

    /// How to reach the person.
    open var personHandle: INPersonHandle? { storedHandle }
    /// The name's parts.
    open var nameComponents: PersonNameComponents? { storedNameComponents }
    /// The name shown.
    open var displayName: String { storedDisplayName }
    /// The avatar.
    open var image: INImage? { storedImage }
    /// The person's identifier in Contacts.
    open var contactIdentifier: String? { storedContactIdentifier }
    /// The app's own identifier of the person.
    open var customIdentifier: String? { storedCustomIdentifier }
    /// Whether it is the device's user.
    open var isMe: Bool { storedIsMe }
    /// How Siri may suggest them.
    open var suggestionType: INPersonSuggestionType { storedSuggestionType }

    /// Returns the receiver: a person is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }
}
#endif
