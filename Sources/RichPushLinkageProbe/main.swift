// The extension side as an app's Notification Service Extension links it: the bridge (and through
// it the pipeline and RichPushCore), nothing else. RichPushLinkageTests inspects this binary's
// shared libraries and symbols to prove no server-side code or library comes along.
import RichPushNotificationService

/// A whole extension, as in Examples/NotificationServiceExtension.
final class ProbeNotificationService: RichPushServiceExtension {}

let service = ProbeNotificationService()
print("\(type(of: service)): \(RichPushSettings.knownKeys.count) settings keys, deadline \(service.configuration.deadline) s")
