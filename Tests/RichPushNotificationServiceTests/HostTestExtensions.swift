#if !canImport(UserNotifications)
import Foundation
import UserNotificationsStandIn

/// An extension that never calls its content handler.
final class NeverCallingExtension: UNNotificationServiceExtension {
    override func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {}
}

/// An extension that calls its content handler twice, with different titles.
final class TwiceCallingExtension: UNNotificationServiceExtension {
    override func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        let first = UNMutableNotificationContent()
        first.title = "first"
        let second = UNMutableNotificationContent()
        second.title = "second"
        contentHandler(first)
        contentHandler(second)
    }
}

/// An extension whose work never finishes; it hands over its best attempt when time expires.
final class SlowExtension: UNNotificationServiceExtension {
    private(set) var expiryCalls = 0
    private var pending: [(content: UNMutableNotificationContent, handler: (UNNotificationContent) -> Void)] = []

    override func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        guard let best = request.content.mutableCopy() as? UNMutableNotificationContent else { return }
        best.title = "[best attempt] " + best.title
        pending.append((best, contentHandler))
    }

    override func serviceExtensionTimeWillExpire() {
        expiryCalls += 1
        let due = pending
        pending = []
        for item in due { item.handler(item.content) }
    }
}

/// An extension that attaches a file it made, so the host's move can be checked.
final class AttachingExtension: UNNotificationServiceExtension {
    let file: URL

    init(file: URL) {
        self.file = file
        super.init()
    }

    override func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent,
            let attachment = try? UNNotificationAttachment(identifier: "image", url: file, options: nil)
        else {
            contentHandler(request.content)
            return
        }
        content.attachments = [attachment]
        contentHandler(content)
    }
}
#endif
