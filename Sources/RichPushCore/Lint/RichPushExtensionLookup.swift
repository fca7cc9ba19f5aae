/// What the RichPush extension would take from a payload: the media URLs, the push id, whose
/// payload it is; `richpush lint` reports it (`RichPushPayloadLinter.extensionLookup(_:)`).
public struct RichPushExtensionLookup: Sendable, Equatable {
    /// The vendor whose payload it is, if any.
    public var vendor: RichPushVendor?
    /// The media the extension would fetch (key path and URLs; empty when none).
    public var media: RichPushPayloadLookup.Media
    /// The key path the push id would come from.
    public var pushIDKeyPath: RichPushPayloadKeyPath?
    /// The push id the receipt would carry.
    public var pushID: String?
    /// The message from a person it would show as a communication notification, if any.
    public var message: RichPushMessage?

    /// Makes a lookup result.
    /// - Parameters:
    ///   - vendor: the vendor.
    ///   - media: the media found.
    ///   - pushIDKeyPath: where the push id is.
    ///   - pushID: the push id.
    ///   - message: the message from a person, if any.
    public init(
        vendor: RichPushVendor?, media: RichPushPayloadLookup.Media, pushIDKeyPath: RichPushPayloadKeyPath?, pushID: String?, message: RichPushMessage? = nil
    ) {
        self.vendor = vendor
        self.media = media
        self.pushIDKeyPath = pushIDKeyPath
        self.pushID = pushID
        self.message = message
    }

    /// One sentence: `media https://… (att), push id 9f3c… (custom.i), OneSignal payload` (and
    /// `, a message from Ada (u-42) in the group Engine room, with avatar`).
    public var summary: String {
        var parts: [String] = []
        if let path = media.path, let first = media.urls.first {
            parts.append("media \(first)" + (media.urls.count > 1 ? " and \(media.urls.count - 1) more" : "") + " (\(path))")
        } else {
            parts.append("no media URL")
        }
        if let pushID, let pushIDKeyPath {
            parts.append("push id \(pushID) (\(pushIDKeyPath))")
        } else {
            parts.append("no push id")
        }
        parts.append(vendor.map { "\($0.name) payload" } ?? "no known vendor's payload")
        if let message {
            let c = message.conversation
            parts.append(
                "a message from \(message.sender.name) (\(message.sender.id))" + (c.isGroup ? " in the group \(c.name ?? c.id)" : "")
                    + (message.sender.avatar == nil ? ", no avatar" : ", with avatar"))
        }
        return parts.joined(separator: ", ")
    }
}
