#if !canImport(Intents)
/// Stand-in for Apple's `INPersonSuggestionType`: how Siri may suggest the person.
public enum INPersonSuggestionType: Int, Sendable {
    /// No suggestion.
    case none = 0
    /// A social profile.
    case socialProfile = 1
    /// An instant-message address.
    case instantMessageAddress = 2
}
#endif
