import Foundation

/// How the extension finds the media URLs and the push id in a payload: one set of rules that
/// the extension, `richpush simulate`, `richpush lint` and the app (`opened` receipts) share.
public enum RichPushPayloadLookup {
    /// At most 10 media URLs per notification (our bound: iOS shows the first as the thumbnail
    /// and the rest in the expanded view; more only spends the extension's 30 s and 24 MB).
    public static let maximumMediaCount = 10

    /// The key whose value may be a deep link rather than media: article 003's top-level `url`.
    public static let linkOrMediaKeyPath: RichPushPayloadKeyPath = "url"

    /// File extensions that make a `url` value media (every format RichPush sniffs, and their
    /// common spellings): a `url` whose path ends otherwise is a link, not fetched.
    public static let mediaFileExtensions: Set<String> = Set(RichPushMediaFormat.known.map(\.fileExtension)).union([
        "jpeg", "jpe", "aif", "m4v", "mpeg", "m4b", "tif",
    ])

    /// What the media lookup found.
    public struct Media: Sendable, Equatable {
        /// The key path that named the media, `nil` when none did.
        public var path: RichPushPayloadKeyPath?
        /// The media URL strings, in payload order (at most `maximumMediaCount`).
        public var urls: [String]
        /// Whether the value at `path` was one string (rather than an array or a dictionary).
        public var isSingleString: Bool
        /// Values of `url` that were deep links (not media), not fetched.
        public var deepLinks: [String]

        /// Makes a result.
        /// - Parameters:
        ///   - path: the key path that named the media.
        ///   - urls: the media URL strings.
        ///   - isSingleString: whether the value was one string.
        ///   - deepLinks: `url` values taken for deep links.
        public init(path: RichPushPayloadKeyPath?, urls: [String], isSingleString: Bool, deepLinks: [String] = []) {
            self.path = path
            self.urls = urls
            self.isSingleString = isSingleString
            self.deepLinks = deepLinks
        }
    }

    /// Finds the media URLs: the first key path holding a non-empty string, an array of strings,
    /// or a dictionary whose values are URLs (OneSignal's `att`: attachment id → URL, in key
    /// order). A top-level `url` that is a deep link (see `isDeepLink(_:)`) is skipped.
    ///
    /// - Parameters:
    ///   - payload: the payload (after decryption).
    ///   - keyPaths: the ordered key paths.
    /// - Returns: what was found; `urls` is empty when no key path named media.
    public static func media(in payload: RichPushJSONValue, keyPaths: [RichPushPayloadKeyPath]) -> Media {
        var deepLinks: [String] = []
        for path in keyPaths {
            var single = false
            var strings: [String]
            switch path.lookup(in: payload) {
            case .string(let s)?:
                strings = [s.value]
                single = true
            case .array(let elements)?:
                strings = elements.compactMap(\.stringValue)
            case .object(let members)?:
                strings = members.keys.sorted().compactMap { members[$0]?.stringValue }.filter { $0.contains("://") }
            default:
                continue
            }
            strings = strings.filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            if path == linkOrMediaKeyPath {
                deepLinks += strings.filter(isDeepLink)
                strings = strings.filter { !isDeepLink($0) }
            }
            if !strings.isEmpty {
                return Media(path: path, urls: Array(strings.prefix(maximumMediaCount)), isSingleString: single, deepLinks: deepLinks)
            }
        }
        return Media(path: nil, urls: [], isSingleString: false, deepLinks: deepLinks)
    }

    /// Whether a `url` value is a deep link rather than media: it is media only when it is an
    /// http(s) URL whose path ends in a media file extension (`mediaFileExtensions`), e.g.
    /// `https://example.com/001.jpg`; `myapp://article/42` and `https://example.com/articles/42`
    /// are links.
    /// - Parameter value: the value of `url`.
    /// - Returns: `true` for a link.
    public static func isDeepLink(_ value: String) -> Bool {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme)
        else { return true }
        let name = components.path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = name.lastIndex(of: ".") else { return true }
        return !mediaFileExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// The push id: the first key path holding a non-empty string or an integer.
    ///
    /// - Parameters:
    ///   - payload: the payload (after decryption).
    ///   - keyPaths: the ordered key paths.
    /// - Returns: the key path and the id (an integer as written), or `nil` when none holds one.
    public static func pushID(in payload: RichPushJSONValue, keyPaths: [RichPushPayloadKeyPath]) -> (path: RichPushPayloadKeyPath, value: String)? {
        for path in keyPaths {
            switch path.lookup(in: payload) {
            case .string(let s)? where !s.value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty: return (path, s.value)
            case .number(let n)? where n.isIntegerLiteral: return (path, n.text)
            default: continue
            }
        }
        return nil
    }
}
