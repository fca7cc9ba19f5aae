#if !canImport(Intents)
/// Stand-in for Apple's `INOutgoingMessageType`: the kind of message.
public enum INOutgoingMessageType: Int, Sendable {
    /// Not said.
    case unknown = 0
    /// A text message.
    case outgoingMessageText = 1
    /// An audio message.
    case outgoingMessageAudio = 2
}
#endif
