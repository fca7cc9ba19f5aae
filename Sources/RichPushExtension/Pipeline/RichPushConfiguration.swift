import Foundation

/// What one `NotificationPipeline` does: where it looks in payloads, its content rules, its deadline.
public struct RichPushConfiguration: Sendable {
    /// Where the media URL may be, tried in order; the first non-empty string wins.
    ///
    /// Default `RichPushPayloadKeyPath.defaultMediaKeyPaths`: the five articles' keys and Firebase's.
    public var mediaKeyPaths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultMediaKeyPaths
    /// Where the push id may be, tried in order; a string or an integer wins.
    ///
    /// Default `RichPushPayloadKeyPath.defaultPushIDKeyPaths`.
    public var pushIDKeyPaths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultPushIDKeyPaths
    /// Where a message's sender (`{"id", "name", "avatar"}`) may be, tried in order
    /// (`RichPushMessage`). Default `RichPushPayloadKeyPath.defaultSenderKeyPaths`: `sender`.
    public var senderKeyPaths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultSenderKeyPaths
    /// Where a message's conversation (`{"id", "name", "avatar", "group"}`) may be, tried in order.
    /// Default `RichPushPayloadKeyPath.defaultConversationKeyPaths`: `conversation`.
    public var conversationKeyPaths: [RichPushPayloadKeyPath] = RichPushPayloadKeyPath.defaultConversationKeyPaths
    /// Whether a payload that names a sender becomes a communication notification (default
    /// `true`): the sender's avatar and name instead of the app's icon, through `INSendMessageIntent`.
    ///
    /// - Important: Apple: the app needs the Communication Notifications capability
    ///   (`com.apple.developer.usernotifications.communication`) and `INSendMessageIntent` in its
    ///   Info.plist's `NSUserActivityTypes`; without them iOS shows the normal notification
    ///   (`richpush doctor` checks both).
    public var communicationNotifications = true
    /// Rule: the body shown when the payload's body is empty; `nil` (the default) leaves it empty.
    ///
    /// Article 000 shows `"すぐに確認"` ("check it now", `RichPushConfiguration.articleDefaultBody`)
    /// for an empty body: set it to that, or your own text, to do the same.
    public var defaultBody: String?
    /// Rule: the category identifier set, per kind of the (first) attached media, when the payload
    /// names no `aps.category`, so a Notification Content Extension listing it
    /// (`UNNotificationExtensionCategory`) shows the media; a kind missing here gets none.
    ///
    /// Default `image`, `video`, `audio` (article 000 uses `image`). A category the payload names
    /// is kept: it is the provider's choice and its actions must not disappear.
    public var mediaCategoryIdentifiers: [RichPushMediaKind: String] = RichPushConfiguration.defaultMediaCategoryIdentifiers
    /// How many button categories each media category has (default 4; 0 turns them off).
    ///
    /// A payload with `buttons` and no `aps.category` gets category `richpush.b.<hash>` while it
    /// has no media; once media is attached it gets `<media category>.buttons.<n>`, n in
    /// 1…`buttonCategorySlots` (e.g. `image.buttons.2`), so a content extension that lists those
    /// identifiers still shows the media with the payload's buttons. The same buttons keep the same
    /// n (a hash of the buttons; `RichPushCategoryRegistry` moves to a free slot when another set of
    /// buttons holds it). With 0, media pushes with buttons keep `richpush.b.<hash>`.
    public var buttonCategorySlots: Int = 4
    /// Formats outside Apple's table to attach anyway (default none): only those in
    /// `RichPushMediaFormat.optInAttachmentFormats` (QuickTime `.mov`, MPEG-2 transport streams).
    ///
    /// - Important: Apple's table (`UNNotificationAttachment`, "Supported File Types") lists
    ///   neither. RichPush fetches and checks them like the others, but iOS decides: it may refuse
    ///   the file, or drop it after the extension handed it over (RichPush would then have
    ///   reported `media_attached`). The Linux stand-in follows Apple's table and refuses them.
    public var additionalAttachmentFormats: Set<RichPushMediaFormat> = []
    /// The pipeline's own stop for media work, in seconds from `start` (default 25).
    ///
    /// - Important: Apple gives a service extension about 30 s before it calls
    ///   `serviceExtensionTimeWillExpire()`; 25 s leaves time to hand the content over.
    public var deadline: Double = 25
    /// Hosts that may be reached over cleartext `http://`: App Transport Security exceptions
    /// (`NSExceptionDomains` in the extension's Info.plist). Everything else must be https.
    public var allowedHTTPHosts: Set<String> = []
    /// Whether user and password written in a media URL (`https://user:pass@host/…`, or in a
    /// redirect's `Location`) are sent as HTTP Basic auth. Default `false`: they are removed from
    /// every request (a payload is no place for a credential, and a redirect must not leak one).
    public var sendsMediaURLCredentials = false
    /// Where the receipt is posted (form-encoded, `push_id` first); `nil` = no receipt.
    public var receiptsURL: URL?
    /// How long delivery may wait for the receipt's answer, in seconds (default 2): never past
    /// `deadline`, and `PipelineRun.expire()` ends the wait at once.
    public var receiptWait: Double = 2
    /// The receipt request's own limit, in seconds (default 10); it may go on after delivery.
    public var receiptTimeout: Double = 10
    /// The parent of the fresh per-notification folders media files are written to.
    ///
    /// Default: `RichPush-attachments` in the temporary directory. On iOS use a folder the
    /// extension owns; the system moves an attached file into its own store.
    public var attachmentsDirectory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("RichPush-attachments")

    // MARK: Extension depth (issue 6)

    /// Keys for encrypted payloads (`enc` envelopes); `nil` = an encrypted payload keeps the
    /// server's alert with reason `decrypt_failed` (`unknown_kid`).
    public var keyProvider: (any RichPushKeyProvider)?
    /// The shared media cache (App Group container); `nil` = every media is fetched.
    @_spi(RichPushInternal) public var mediaCache: MediaCache?
    /// The shared container for the receipt queue, install id, seen pushes and badge counter
    /// (App Group container); `nil` = receipts sent once without a queue, `badge_op` ignored.
    public var stateDirectory: URL?
    /// Per-device receipts (`RecipientReceipts`, off by default): each receipt names the device
    /// (`device_id`, authenticated with the device secret the app saved from `POST /v1/devices`,
    /// `RichPushReceiptDeviceReference`) so the server can say who saw a push; never the device token.
    /// Off, or without a saved credential, receipts are anonymous.
    public var recipientReceipts = false
    /// Where the one log line per notification goes (default: os_log / standard error).
    public var logger: RichPushLogger = .standard
    /// Converts an avatar iOS would not draw as it is (WebP, HEIC, …, or over 1 MB): ImageIO on
    /// Apple platforms; on Linux the host that plays iOS supplies one (`nil`: such avatars fail).
    @_spi(RichPushInternal)
    public var avatarConverter: (any AvatarConverter)? = RichPushConfiguration.platformAvatarConverter

    /// The platform's avatar converter: ImageIO where it exists, none elsewhere.
    static var platformAvatarConverter: (any AvatarConverter)? {
        #if canImport(ImageIO)
        return ImageIOAvatarConverter()
        #else
        return nil
        #endif
    }

    /// Article 000's text for an empty body: "すぐに確認" ("check it now"); an example for
    /// `defaultBody`, not the default.
    public static let articleDefaultBody = "すぐに確認"

    /// The default media categories: `image`, `video` and `audio`, one per kind.
    public static let defaultMediaCategoryIdentifiers: [RichPushMediaKind: String] = [.image: "image", .video: "video", .audio: "audio"]

    /// The formats the pipeline attaches: Apple's table plus `additionalAttachmentFormats` (only
    /// those of `RichPushMediaFormat.optInAttachmentFormats`).
    public var attachableFormats: Set<RichPushMediaFormat> {
        Set(RichPushMediaFormat.appleAttachmentFormats).union(additionalAttachmentFormats.intersection(RichPushMediaFormat.optInAttachmentFormats))
    }

    /// Every category a Notification Content Extension must list in its Info.plist
    /// (`NSExtensionAttributes` → `UNNotificationExtensionCategory`, an array) to show the media
    /// this configuration attaches: each media category, then its button slots; e.g. `image`,
    /// `image.buttons.1` … `image.buttons.4`, `video`, …, `audio`, … with the defaults.
    public var contentExtensionCategories: [String] {
        RichPushMediaKind.allCases.compactMap { mediaCategoryIdentifiers[$0] }.reduce(into: [String]()) { list, base in
            guard !list.contains(base) else { return }
            list.append(base)
            for slot in 0..<max(0, buttonCategorySlots) {
                list.append(RichPushCategoryDescription.buttonSlotIdentifier(base: base, slot: slot + 1))
            }
        }
    }

    /// Makes the default configuration (every key path convention on, no default body, 25 s
    /// deadline, no receipt).
    public init() {}
}
