/// What the RichPush extension would take from a payload: the media URLs, the push id, whose
/// payload it is; `richpush lint` reports it (`PayloadLinter.extensionLookup(_:)`).
public struct ExtensionLookup: Sendable, Equatable {
    /// The vendor whose payload it is, if any.
    public var vendor: PushVendor?
    /// The media the extension would fetch (key path and URLs; empty when none).
    public var media: PayloadLookup.Media
    /// The key path the push id would come from.
    public var pushIDKeyPath: PayloadKeyPath?
    /// The push id the receipt would carry.
    public var pushID: String?

    /// Makes a lookup result.
    /// - Parameters:
    ///   - vendor: the vendor.
    ///   - media: the media found.
    ///   - pushIDKeyPath: where the push id is.
    ///   - pushID: the push id.
    public init(vendor: PushVendor?, media: PayloadLookup.Media, pushIDKeyPath: PayloadKeyPath?, pushID: String?) {
        self.vendor = vendor
        self.media = media
        self.pushIDKeyPath = pushIDKeyPath
        self.pushID = pushID
    }

    /// One sentence: `media https://… (att), push id 9f3c… (custom.i), OneSignal payload`.
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
        return parts.joined(separator: ", ")
    }
}
