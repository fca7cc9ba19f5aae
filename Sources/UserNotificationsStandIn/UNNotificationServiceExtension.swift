#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNNotificationServiceExtension` on platforms without UserNotifications.
///
/// Same name and signatures as Apple's class (UserNotifications, iOS 10+), so that code written
/// for iOS — `RichPushServiceExtension` above all — compiles and runs here unchanged; like every
/// declaration of this module it is in Apple's headers (`StandInAPITests`). The
/// "system" side (calling `didReceive`, the ~30 s budget, `serviceExtensionTimeWillExpire()`,
/// moving attachments away) is played by `ExtensionHost` in `RichPushExtensionHost`.
///
/// - Important: Apple's content handler is a plain `(UNNotificationContent) -> Void` (the
///   framework has no strict-concurrency annotations); this stand-in mirrors that, so Swift 6
///   code around it needs the same care it needs on iOS.
open class UNNotificationServiceExtension: NSObject {
    /// Makes an extension instance; the host (on iOS, the system) makes it with this initializer.
    public override init() {
        super.init()
    }

    /// Asks the extension to change a notification's content, then to call `contentHandler` once.
    ///
    /// The base implementation does nothing, as on iOS you must override it; the host then shows
    /// the original content when the budget runs out.
    /// - Parameters:
    ///   - request: the original notification request.
    ///   - contentHandler: the block to call, exactly once, with the content to show.
    open func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {}

    /// Tells the extension that its time is up: call every pending content handler now.
    ///
    /// - Important: Apple: called when the extension's time (about 30 s) runs out; content handed
    ///   over later is ignored and the original content is shown.
    open func serviceExtensionTimeWillExpire() {}
}
#endif
