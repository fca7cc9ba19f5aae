/// The content a notification shows: what the extension hands back to the system.
///
/// Mirrors the fields of `UNMutableNotificationContent` that RichPush edits, as plain values.
public struct NotificationContent: Sendable, Equatable, Codable {
    public var title: String
    public var subtitle: String
    public var body: String
    public var categoryIdentifier: String
    public var threadIdentifier: String
    public var badge: Int?
    public var sound: String?
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

        public init(identifier: String, file: String, type: String, bytes: Int) {
            self.identifier = identifier
            self.file = file
            self.type = type
            self.bytes = bytes
        }
    }

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
    public init(payload: NotificationPayload) {
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
