// A message from a person as Apple's communication notification: INPerson for the sender (the
// avatar as data), INSendMessageIntent for the conversation, its interaction donated.
// One source file for iOS and Linux (IntentsStandIn there).
import Foundation
@_spi(RichPushInternal) import RichPushExtension

#if canImport(Intents)
@preconcurrency import Intents
#else
import IntentsStandIn
#endif

#if canImport(UserNotifications)
@preconcurrency import UserNotifications
#else
import UserNotificationsStandIn
#endif

/// Makes and donates the intent of a communication notification (Apple: "Implementing
/// communication notifications").
enum CommunicationIntent {
    /// The intent for a prepared message: the sender as an `INPerson` whose image is the avatar's
    /// data (`INImage(imageData:)`, never a file URL), the conversation's identifier, and for a
    /// group its name and avatar (`setImage(_:forParameterNamed: \.speakableGroupName)`) with the
    /// user and the sender as recipients (iOS shows a group for more than one recipient).
    /// - Parameter prepared: the message and its avatars.
    /// - Returns: the intent.
    static func make(_ prepared: PreparedMessage) -> INSendMessageIntent {
        let message = prepared.message
        let sender = INPerson(
            personHandle: INPersonHandle(value: message.sender.id, type: .unknown), nameComponents: nil, displayName: message.sender.name,
            image: prepared.senderAvatar.map { INImage(imageData: $0.data) }, contactIdentifier: nil, customIdentifier: message.sender.id,
            isMe: false, suggestionType: .none)
        let group = message.conversation.isGroup
        var recipients: [INPerson]?
        if group {
            let me = INPerson(
                personHandle: INPersonHandle(value: nil, type: .unknown), nameComponents: nil, displayName: nil, image: nil, contactIdentifier: nil,
                customIdentifier: nil, isMe: true, suggestionType: .none)
            recipients = [me, sender]
        }
        let intent = INSendMessageIntent(
            recipients: recipients, outgoingMessageType: .outgoingMessageText, content: prepared.text,
            speakableGroupName: group ? message.conversation.name.map { INSpeakableString(spokenPhrase: $0) } : nil,
            conversationIdentifier: message.conversation.id, serviceName: nil, sender: sender, attachments: nil)
        if group, let avatar = prepared.conversationAvatar {
            intent.setImage(INImage(imageData: avatar.data), forParameterNamed: \.speakableGroupName)
        }
        return intent
    }

    /// Makes the intent, donates it as an incoming interaction, and checks that the request's
    /// content can be updated from it (iOS refuses, for one, an app without the Communication
    /// Notifications capability).
    /// - Parameters:
    ///   - prepared: the message and its avatars.
    ///   - request: the notification request.
    /// - Returns: the intent, to update the delivered content from.
    /// - Throws: the donation's or the update's error.
    static func donate(_ prepared: PreparedMessage, for request: UNNotificationRequest) async throws -> INSendMessageIntent {
        let intent = make(prepared)
        let interaction = INInteraction(intent: intent, response: nil)
        interaction.direction = .incoming
        try await interaction.donate()
        _ = try request.content.updating(from: intent)
        return intent
    }
}
