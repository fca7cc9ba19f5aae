import UIKit
import UserNotificationsUI

final class NotificationViewController: UIViewController, UNNotificationContentExtension {
    func didReceive(_ notification: UNNotification) {}
}
