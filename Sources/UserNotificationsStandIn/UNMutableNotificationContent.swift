#if !canImport(UserNotifications)
import Foundation

/// Stand-in for Apple's `UNMutableNotificationContent`: content an extension can edit.
open class UNMutableNotificationContent: UNNotificationContent {
    /// Makes empty content to fill in.
    public override init() {
        super.init()
    }

    /// The title.
    open override var title: String {
        get { storedTitle }
        set { storedTitle = newValue }
    }
    /// The subtitle.
    open override var subtitle: String {
        get { storedSubtitle }
        set { storedSubtitle = newValue }
    }
    /// The body.
    open override var body: String {
        get { storedBody }
        set { storedBody = newValue }
    }
    /// The app icon badge, `nil` to leave it unchanged.
    open override var badge: NSNumber? {
        get { storedBadge }
        set { storedBadge = newValue }
    }
    /// The sound, `nil` for none.
    open override var sound: UNNotificationSound? {
        get { storedSound }
        set { storedSound = newValue }
    }
    /// The category identifier.
    open override var categoryIdentifier: String {
        get { storedCategoryIdentifier }
        set { storedCategoryIdentifier = newValue }
    }
    /// The thread identifier.
    open override var threadIdentifier: String {
        get { storedThreadIdentifier }
        set { storedThreadIdentifier = newValue }
    }
    /// The payload's custom data.
    open override var userInfo: [AnyHashable: Any] {
        get { storedUserInfo }
        set { storedUserInfo = newValue }
    }
    /// The media attachments (each validated when it was made).
    open override var attachments: [UNNotificationAttachment] {
        get { storedAttachments }
        set { storedAttachments = newValue }
    }
    /// The launch image name.
    open override var launchImageName: String {
        get { storedLaunchImageName }
        set { storedLaunchImageName = newValue }
    }
    /// The target content identifier.
    open override var targetContentIdentifier: String? {
        get { storedTargetContentIdentifier }
        set { storedTargetContentIdentifier = newValue }
    }
    /// The relevance score, 0…1.
    open override var relevanceScore: Double {
        get { storedRelevanceScore }
        set { storedRelevanceScore = newValue }
    }
}
#endif
