#if !canImport(Intents)
import Foundation
import UserNotificationsStandIn

/// Stand-in for Apple's `INSendMessageIntent`: a message, with its sender, recipients and
/// conversation; a notification's content updated from it is a communication notification.
open class INSendMessageIntent: INIntent, UNNotificationContentProviding {
    private var storedRecipients: [INPerson]?
    private var storedOutgoingMessageType = INOutgoingMessageType.unknown
    private var storedContent: String?
    private var storedSpeakableGroupName: INSpeakableString?
    private var storedConversationIdentifier: String?
    private var storedServiceName: String?
    private var storedSender: INPerson?

    /// A message.
    /// - Parameters:
    ///   - recipients: who it goes to (the user, and the group's others).
    ///   - outgoingMessageType: text or audio.
    ///   - content: the message text.
    ///   - speakableGroupName: the group's name (a group conversation), `nil` for one-to-one.
    ///   - conversationIdentifier: the app's identifier of the conversation.
    ///   - serviceName: the messaging service, if several.
    ///   - sender: who sent it.
    ///   - attachments: files sent with it (the stand-in keeps none).
    public init(
        recipients: [INPerson]?, outgoingMessageType: INOutgoingMessageType, content: String?, speakableGroupName: INSpeakableString?,
        conversationIdentifier: String?, serviceName: String?, sender: INPerson?, attachments: [INSendMessageAttachment]?
    ) {
        super.init()
        storedRecipients = recipients
        storedOutgoingMessageType = outgoingMessageType
        storedContent = content
        storedSpeakableGroupName = speakableGroupName
        storedConversationIdentifier = conversationIdentifier
        storedServiceName = serviceName
        storedSender = sender
    }

    /// Who it goes to.
    open var recipients: [INPerson]? { storedRecipients }
    /// Text or audio.
    open var outgoingMessageType: INOutgoingMessageType { storedOutgoingMessageType }
    /// The message text.
    open var content: String? { storedContent }
    /// The group's name.
    open var speakableGroupName: INSpeakableString? { storedSpeakableGroupName }
    /// The app's identifier of the conversation.
    open var conversationIdentifier: String? { storedConversationIdentifier }
    /// The messaging service.
    open var serviceName: String? { storedServiceName }
    /// Who sent it.
    open var sender: INPerson? { storedSender }
}
#endif
