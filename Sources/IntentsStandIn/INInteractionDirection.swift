#if !canImport(Intents)
/// Stand-in for Apple's `INInteractionDirection`: whether the user sent or received it.
public enum INInteractionDirection: Int, Sendable {
    /// Not said.
    case unspecified = 0
    /// The user sent it.
    case outgoing = 1
    /// The user received it (a message notification).
    case incoming = 2
}
#endif
