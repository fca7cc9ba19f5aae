/// A path to a value inside a push payload, written with dots: `aps.alert.image`, `image-url`.
///
/// Some payload keys contain a dot themselves (Firebase's `gcm.message_id`), so lookup tries,
/// at each level, the longest run of components that is a literal key before descending:
/// `gcm.message_id` finds the top-level key `"gcm.message_id"`, and `fcm_options.image` finds
/// `{"fcm_options": {"image": …}}`.
public struct RichPushPayloadKeyPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The dot-separated components, in order.
    public let components: [String]

    /// Makes a key path from its dotted form.
    /// - Parameter dotted: e.g. `"aps.alert.image"`; empty components are dropped.
    public init(_ dotted: String) {
        components = dotted.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The dotted form.
    public var description: String { components.joined(separator: ".") }

    /// Finds the value this path names.
    ///
    /// - Parameter root: the payload (normally a JSON object).
    /// - Returns: the value, or `nil` when any step is missing or not an object.
    public func lookup(in root: RichPushJSONValue) -> RichPushJSONValue? {
        Self.lookup(components[...], in: root)
    }

    /// Finds the string this path names.
    ///
    /// - Parameter root: the payload.
    /// - Returns: the string, or `nil` when the path is missing or holds something else.
    public func string(in root: RichPushJSONValue) -> String? {
        lookup(in: root)?.stringValue
    }

    private static func lookup(_ rest: ArraySlice<String>, in value: RichPushJSONValue) -> RichPushJSONValue? {
        guard !rest.isEmpty else { return value }
        guard case .object(let object) = value else { return nil }
        // Longest literal key first: "gcm.message_id" before "gcm" → "message_id".
        var end = rest.endIndex
        while end > rest.startIndex {
            let key = rest[rest.startIndex..<end].joined(separator: ".")
            if let child = object[key], let found = lookup(rest[end...], in: child) {
                return found
            }
            end -= 1
        }
        return nil
    }
}

extension RichPushPayloadKeyPath {
    /// The media URL keys of the source articles and Firebase, in the order they are tried.
    ///
    /// `aps.alert.image` (article 000), `image-url` (001, 002), `attachment-url` (002), `url` (003,
    /// only when it is media, see `RichPushPayloadLookup.isDeepLink(_:)`), `media-url` (004),
    /// `fcm_options.image` (Firebase).
    public static let articleMediaKeyPaths: [RichPushPayloadKeyPath] = [
        "aps.alert.image", "image-url", "attachment-url", "url", "media-url", "fcm_options.image",
    ]

    /// The push id keys of the source articles and Firebase, in the order they are tried.
    ///
    /// `aps.alert.push_id` (article 000), top-level `push_id`, `message_id`, Firebase's `gcm.message_id`.
    public static let articlePushIDKeyPaths: [RichPushPayloadKeyPath] = [
        "aps.alert.push_id", "push_id", "message_id", "gcm.message_id",
    ]

    /// Every media key tried by default: the articles' keys, then each vendor's of
    /// `RichPushVendor.all` (OneSignal `att`, Airship, Braze, Iterable, CleverTap, Pushwoosh,
    /// Customer.io, Expo, Amazon Pinpoint, Batch), each once.
    public static let defaultMediaKeyPaths: [RichPushPayloadKeyPath] = unique(articleMediaKeyPaths + RichPushVendor.all.flatMap(\.mediaKeyPaths))

    /// Every push id key tried by default: the articles' keys, then each vendor's per-message id
    /// (`RichPushVendor.all`), each once. Per-delivery ids (Customer.io's `CIO-Delivery-ID`) are not
    /// among them: they are not push ids.
    public static let defaultPushIDKeyPaths: [RichPushPayloadKeyPath] = unique(articlePushIDKeyPaths + RichPushVendor.all.flatMap(\.pushIDKeyPaths))

    private static func unique(_ paths: [RichPushPayloadKeyPath]) -> [RichPushPayloadKeyPath] {
        var seen = Set<RichPushPayloadKeyPath>()
        return paths.filter { seen.insert($0).inserted }
    }
}
