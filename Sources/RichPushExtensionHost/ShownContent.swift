#if !canImport(UserNotifications)
import Foundation
import UserNotificationsStandIn
import RichPushCore

/// What the user would see: a `Sendable` snapshot of the `UNNotificationContent` the host showed.
public struct ShownContent: Sendable, Equatable {
    /// An attachment as shown: its file is in the host's store.
    public struct Attachment: Sendable, Equatable {
        /// The attachment identifier.
        public var identifier: String
        /// The UTType identifier, e.g. `public.jpeg`.
        public var type: String
        /// The file in the host's store.
        public var file: URL
        /// The file's size in bytes.
        public var bytes: Int
    }

    /// The title.
    public var title: String
    /// The subtitle.
    public var subtitle: String
    /// The body.
    public var body: String
    /// The category identifier.
    public var categoryIdentifier: String
    /// The thread identifier.
    public var threadIdentifier: String
    /// The badge, `nil` when unchanged.
    public var badge: Int?
    /// The sound's payload name (`default` or a file name), `nil` for none.
    public var sound: String?
    /// The payload (`userInfo`) as JSON, `nil` when it holds non-JSON values.
    public var userInfo: RichPushJSONValue?
    /// The attachments, in order.
    public var attachments: [Attachment]
    /// The action identifiers of the category registered under `categoryIdentifier` in
    /// `UNUserNotificationCenter.current()` when the content was shown, in order; `nil` when no
    /// such category was registered then (iOS shows no buttons).
    public var registeredCategoryActions: [String]?
    /// The sender and conversation when the content was updated from a message intent (a
    /// communication notification); `nil` for a normal notification.
    public var communication: ShownCommunication?
}
#endif
