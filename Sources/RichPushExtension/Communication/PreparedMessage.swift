/// A message ready for its intent: the payload's sender and conversation, the text, and the
/// avatars as data. What the pipeline hands to the platform part (`RichPushServiceExtension`
/// makes `INPerson` and `INSendMessageIntent` from it, donates the interaction and checks that
/// the content can be updated from the intent).
@_spi(RichPushInternal)
public struct PreparedMessage: Sendable, Equatable {
    /// The payload's sender and conversation.
    public var message: RichPushMessage
    /// The message text: the notification's body.
    public var text: String
    /// The sender's avatar, `nil` when the payload names none.
    public var senderAvatar: AvatarImage?
    /// The group's avatar, `nil` when the payload names none (or it is one-to-one).
    public var conversationAvatar: AvatarImage?

    /// Makes a prepared message.
    /// - Parameters:
    ///   - message: the sender and conversation.
    ///   - text: the message text.
    ///   - senderAvatar: the sender's avatar.
    ///   - conversationAvatar: the group's avatar.
    public init(message: RichPushMessage, text: String, senderAvatar: AvatarImage? = nil, conversationAvatar: AvatarImage? = nil) {
        self.message = message
        self.text = text
        self.senderAvatar = senderAvatar
        self.conversationAvatar = conversationAvatar
    }
}
