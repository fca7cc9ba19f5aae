#if !canImport(UserNotifications)
import Foundation
@_spi(RichPushInternal) internal import RichPushCore

/// Stand-in for Apple's `UNNotificationContent`: what a notification shows (read-only).
///
/// Copy semantics follow Apple's: `copy()` gives an immutable `UNNotificationContent`,
/// `mutableCopy()` a `UNMutableNotificationContent`; both copy every field (arrays and
/// dictionaries by value, attachments by reference, as `NSArray` copies do).
open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying {
    // Storage shared with `UNMutableNotificationContent` (same module).
    var storedTitle = ""
    var storedSubtitle = ""
    var storedBody = ""
    var storedBadge: NSNumber?
    var storedSound: UNNotificationSound?
    var storedCategoryIdentifier = ""
    var storedThreadIdentifier = ""
    var storedUserInfo: [AnyHashable: Any] = [:]
    var storedAttachments: [UNNotificationAttachment] = []
    var storedLaunchImageName = ""
    var storedTargetContentIdentifier: String?
    var storedRelevanceScore = 0.0
    var storedContentProvider: (any UNNotificationContentProviding)?

    /// Makes empty content (on iOS the system makes these from the payload's `aps`).
    public override init() {
        super.init()
    }

    /// The title (`aps.alert.title`).
    open var title: String { storedTitle }
    /// The subtitle (`aps.alert.subtitle`).
    open var subtitle: String { storedSubtitle }
    /// The body (`aps.alert.body`, or `aps.alert` when it is a string).
    open var body: String { storedBody }
    /// The app icon badge (`aps.badge`), `nil` to leave it unchanged.
    open var badge: NSNumber? { storedBadge }
    /// The sound (`aps.sound`), `nil` for none.
    open var sound: UNNotificationSound? { storedSound }
    /// The category (`aps.category`), which selects actions and a content extension.
    open var categoryIdentifier: String { storedCategoryIdentifier }
    /// The thread (`aps.thread-id`) used to group notifications.
    open var threadIdentifier: String { storedThreadIdentifier }
    /// The whole payload, `aps` included, as property-list values.
    open var userInfo: [AnyHashable: Any] { storedUserInfo }
    /// The media attachments.
    open var attachments: [UNNotificationAttachment] { storedAttachments }
    /// The launch image name (`aps.alert.launch-image`).
    open var launchImageName: String { storedLaunchImageName }
    /// The target content identifier (`aps.target-content-id`).
    open var targetContentIdentifier: String? { storedTargetContentIdentifier }
    /// The relevance score (`aps.relevance-score`), 0…1.
    open var relevanceScore: Double { storedRelevanceScore }

    /// Copies every field into `target`.
    func copyFields(into target: UNNotificationContent) {
        target.storedTitle = storedTitle
        target.storedSubtitle = storedSubtitle
        target.storedBody = storedBody
        target.storedBadge = storedBadge
        target.storedSound = storedSound
        target.storedCategoryIdentifier = storedCategoryIdentifier
        target.storedThreadIdentifier = storedThreadIdentifier
        target.storedUserInfo = storedUserInfo
        target.storedAttachments = storedAttachments
        target.storedLaunchImageName = storedLaunchImageName
        target.storedTargetContentIdentifier = storedTargetContentIdentifier
        target.storedRelevanceScore = storedRelevanceScore
        target.storedContentProvider = storedContentProvider
    }

    /// An immutable copy (the exact class `UNNotificationContent`, even from mutable content).
    func immutableCopy() -> UNNotificationContent {
        let copy = UNNotificationContent()
        copyFields(into: copy)
        return copy
    }

    /// A copy of the content updated from a provider: an `INSendMessageIntent` makes it a
    /// communication notification (the sender's avatar and name).
    ///
    /// Like iOS, the fields stay as they are; the provider goes with the content (the Linux host
    /// reads it). The host can make it throw (`failUpdating(with:)`) as iOS does for an app
    /// without the Communication Notifications capability: `contentProvidingObjectNotAllowed`.
    /// - Parameter provider: the intent.
    /// - Returns: an immutable copy that carries the provider.
    /// - Throws: `UNError` `contentProvidingObjectNotAllowed` when the host set a failure.
    open func updating(from provider: any UNNotificationContentProviding) throws -> UNNotificationContent {
        if let message = Self.updatingFailure.withLock({ $0 }) {
            throw UNError(.contentProvidingObjectNotAllowed, userInfo: [NSLocalizedDescriptionKey: message])
        }
        let copy = immutableCopy()
        copy.storedContentProvider = provider
        return copy
    }

    /// What the content was updated from (for the Linux host), `nil` when it was not.
    package var contentProvider: (any UNNotificationContentProviding)? { storedContentProvider }

    private static let updatingFailure = Locked<String?>(nil)

    /// Makes every later `updating(from:)` throw with this message (`nil`: succeed), as a system
    /// that refuses the update would (for the Linux host's fault injection).
    /// - Parameter message: the error's message, or `nil`.
    package static func failUpdating(with message: String?) {
        updatingFailure.withLock { $0 = message }
    }

    /// Returns an immutable copy.
    /// - Parameter zone: unused.
    /// - Returns: a `UNNotificationContent` with the same fields.
    open func copy(with zone: NSZone? = nil) -> Any {
        immutableCopy()
    }

    /// Returns a mutable copy, the usual start of an extension's work.
    /// - Parameter zone: unused.
    /// - Returns: a `UNMutableNotificationContent` with the same fields.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = UNMutableNotificationContent()
        copyFields(into: copy)
        return copy
    }
}
#endif
