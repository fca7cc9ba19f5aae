@_spi(RichPushInternal) import RichPushNotificationService
import UserNotifications

final class NotificationService: RichPushServiceExtension {}
