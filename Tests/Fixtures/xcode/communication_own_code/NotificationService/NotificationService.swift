import Intents
import UserNotifications

final class NotificationService: UNNotificationServiceExtension {
    func intent(_ sender: INPerson) -> INSendMessageIntent {
        INSendMessageIntent(
            recipients: nil, outgoingMessageType: .outgoingMessageText, content: nil, speakableGroupName: nil,
            conversationIdentifier: nil, serviceName: nil, sender: sender, attachments: nil)
    }
}
