/// The content a notification shows: what the extension hands back to the system.
///
/// Mirrors the fields of `UNMutableNotificationContent` that RichPush edits, as plain values.
///
/// `RichPush`-prefixed (it was `NotificationContent` before 0.11.0) so that it cannot clash with an app's own
/// `NotificationContent`: an extension sees RichPushCore's names through `import RichPushNotificationService`.
public struct RichPushNotificationContent: Sendable, Equatable, Codable {
    /// The title (`UNMutableNotificationContent.title`); empty for none.
    public var title: String
    /// The subtitle (`subtitle`); empty for none.
    public var subtitle: String
    /// The body (`body`); empty for none.
    public var body: String
    /// The category that picks the content extension and the buttons (`categoryIdentifier`); empty for none.
    public var categoryIdentifier: String
    /// The thread that groups notifications (`threadIdentifier`); empty for none.
    public var threadIdentifier: String
    /// The app icon badge (`badge`); `nil` leaves it as it is.
    public var badge: Int?
    /// The sound: `default` or a sound file name in the app bundle; `nil` for none.
    public var sound: String?
    /// The media files attached, in order.
    public var attachments: [Attachment]

    /// A media file attached to the notification.
    public struct Attachment: Sendable, Equatable, Codable {
        /// The attachment identifier (unique within the notification).
        public var identifier: String
        /// The file's absolute path.
        public var file: String
        /// The UTType identifier, e.g. `public.jpeg`.
        public var type: String
        /// The file's size in bytes.
        public var bytes: Int

        /// An attachment.
        /// - Parameters:
        ///   - identifier: unique within the notification.
        ///   - file: the file's absolute path.
        ///   - type: the UTType identifier, e.g. `public.jpeg`.
        ///   - bytes: the file's size in bytes.
        public init(identifier: String, file: String, type: String, bytes: Int) {
            self.identifier = identifier
            self.file = file
            self.type = type
            self.bytes = bytes
        }
    }

    /// Content with the given fields (every one optional).
    /// - Parameters:
    ///   - title: the title; empty for none.
    ///   - subtitle: the subtitle; empty for none.
    ///   - body: the body; empty for none.
    ///   - categoryIdentifier: the category; empty for none.
    ///   - threadIdentifier: the thread; empty for none.
    ///   - badge: the app icon badge; `nil` leaves it as it is.
    ///   - sound: `default` or a sound file name; `nil` for none.
    ///   - attachments: the media files, in order.
    public init(
        title: String = "", subtitle: String = "", body: String = "", categoryIdentifier: String = "",
        threadIdentifier: String = "", badge: Int? = nil, sound: String? = nil, attachments: [Attachment] = []
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.categoryIdentifier = categoryIdentifier
        self.threadIdentifier = threadIdentifier
        self.badge = badge
        self.sound = sound
        self.attachments = attachments
    }

    /// The content iOS would show for a payload with no extension involved.
    ///
    /// - Parameter payload: the parsed payload.
    public init(payload: RichPushNotificationPayload) {
        self.init(
            title: payload.alert?.title ?? "",
            subtitle: payload.alert?.subtitle ?? "",
            body: payload.alert?.body ?? "",
            categoryIdentifier: payload.category ?? "",
            threadIdentifier: payload.threadID ?? "",
            badge: payload.badge,
            sound: payload.sound
        )
    }
}
