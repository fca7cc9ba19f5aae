extension RichPushResultDetails {
    /// What the communication stage did with a message's sender and conversation (a
    /// communication notification: the sender's avatar and name instead of the app's icon).
    public struct Communication: Sendable, Equatable {
        /// An avatar as handed over.
        public struct Avatar: Sendable, Equatable {
            /// The bytes handed over.
            public var bytes: Int
            /// Their UTType identifier (`public.jpeg`, `public.png`, `com.compuserve.gif`).
            public var type: String
            /// The UTType identifier of what the avatar server sent.
            public var sourceType: String
            /// What the avatar server sent, in bytes.
            public var sourceBytes: Int
            /// Whether it was converted (another format, or made smaller).
            public var converted: Bool

            /// Describes an avatar.
            /// - Parameter image: the avatar handed over.
            @_spi(RichPushInternal)
            public init(_ image: AvatarImage) {
                bytes = image.data.count
                type = image.format.uniformTypeIdentifier
                sourceType = image.sourceFormat.uniformTypeIdentifier
                sourceBytes = image.sourceBytes
                converted = image.converted
            }
        }

        /// The payload's sender and conversation; `nil` when its `sender` was unusable (`problem` says why).
        public var message: RichPushMessage?
        /// The sender's avatar as handed over, `nil` when none was (none named, or it failed).
        public var senderAvatar: Avatar?
        /// The group's avatar as handed over, `nil` when none was.
        public var conversationAvatar: Avatar?
        /// Whether the notification goes out as a communication notification (the intent was
        /// made and donated, and the content can be updated from it).
        public var shown: Bool
        /// Why it goes out as the normal notification instead: `avatar_failed` or `intent_failed`;
        /// `nil` when shown, or when no platform part was there to make the intent.
        public var fallback: RichPushReasonCode?
        /// What happened, in a sentence (the failure, or why no intent was made).
        public var note: String?

        /// Makes a report.
        /// - Parameters:
        ///   - message: the sender and conversation.
        ///   - senderAvatar: the sender's avatar handed over.
        ///   - conversationAvatar: the group's avatar handed over.
        ///   - shown: whether it goes out as a communication notification.
        ///   - fallback: why not, when it does not.
        ///   - note: what happened.
        public init(
            message: RichPushMessage?, senderAvatar: Avatar? = nil, conversationAvatar: Avatar? = nil, shown: Bool = false,
            fallback: RichPushReasonCode? = nil, note: String? = nil
        ) {
            self.message = message
            self.senderAvatar = senderAvatar
            self.conversationAvatar = conversationAvatar
            self.shown = shown
            self.fallback = fallback
            self.note = note
        }
    }
}
