#if !canImport(UserNotifications)
import Foundation
import IntentsStandIn
import RichPushCore
import UserNotificationsStandIn

/// A communication notification as iOS would show it: the sender and conversation of the
/// `INSendMessageIntent` the content was updated from, and the avatars' bytes.
public struct ShownCommunication: Sendable, Equatable {
    /// An avatar as handed to `INImage(imageData:)`.
    public struct Avatar: Sendable, Equatable {
        /// Its bytes.
        public var bytes: Int
        /// The format its first bytes show (`RichPushMediaFormat.sniff`), `nil` when none RichPush knows.
        public var format: RichPushMediaFormat?
        /// Whether iOS draws it: JPEG, PNG or GIF.
        public var drawable: Bool { format.map { [.jpeg, .png, .gif].contains($0) } ?? false }

        init(_ image: INImage) {
            bytes = image.imageData.count
            format = RichPushMediaFormat.sniff(image.imageData.prefix(RichPushMediaFormat.sniffLength))
        }
    }

    /// The sender's name (`INPerson.displayName`).
    public var senderName: String
    /// The sender's identifier (`INPerson.customIdentifier`).
    public var senderID: String?
    /// The sender's avatar, `nil` for none (iOS draws the initials).
    public var senderAvatar: Avatar?
    /// The conversation's identifier.
    public var conversationID: String?
    /// The group's name, `nil` for a one-to-one conversation.
    public var groupName: String?
    /// The group's avatar, `nil` for none.
    public var groupAvatar: Avatar?
    /// Whether iOS shows it as a group (a group name, more than one recipient).
    public var isGroup: Bool

    /// The communication the content was updated from, `nil` when it was not.
    /// - Parameter content: the content handed over.
    init?(_ content: UNNotificationContent) {
        guard let intent = content.contentProvider as? INSendMessageIntent, let sender = intent.sender else { return nil }
        senderName = sender.displayName
        senderID = sender.customIdentifier
        senderAvatar = sender.image.map(Avatar.init)
        conversationID = intent.conversationIdentifier
        groupName = intent.speakableGroupName?.phrase
        groupAvatar = intent.imagesByParameter[\INSendMessageIntent.speakableGroupName].map(Avatar.init)
        isGroup = groupName != nil && (intent.recipients?.count ?? 0) > 1
    }
}
#endif
