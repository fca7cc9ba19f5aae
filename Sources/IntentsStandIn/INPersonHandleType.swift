#if !canImport(Intents)
/// Stand-in for Apple's `INPersonHandleType`: what a person handle's value is.
public enum INPersonHandleType: Int, Sendable {
    /// Neither an email address nor a phone number (an app's own identifier).
    case unknown = 0
    /// An email address.
    case emailAddress = 1
    /// A phone number.
    case phoneNumber = 2
}
#endif
