import Foundation

/// A push payload as APNs hands it to the app or its extension: the `aps` dictionary and custom keys.
///
/// Parsing is strict about shape (so a broken payload is reported, never guessed at) and lenient
/// about content (unknown keys are kept in `root`).
///
/// `RichPush`-prefixed (it was `NotificationPayload` before 0.11.0) so that it cannot clash with an app's own
/// `NotificationPayload`: an extension sees RichPushCore's names through `import RichPushNotificationService`.
public struct RichPushNotificationPayload: Sendable, Equatable {
    /// The `aps.alert` dictionary (or the string form, as `body`).
    public struct Alert: Sendable, Equatable {
        /// `aps.alert.title`.
        public var title: String?
        /// `aps.alert.subtitle`.
        public var subtitle: String?
        /// `aps.alert.body`, or `aps.alert` when it is a string.
        public var body: String?
        /// `aps.alert.title-loc-key`: the key of a localized title in the app's `Localizable.strings`.
        public var titleLocKey: String?
        /// `aps.alert.title-loc-args`: the values for the localized title's format specifiers.
        public var titleLocArgs: [String]?
        /// `aps.alert.subtitle-loc-key`: the key of a localized subtitle.
        public var subtitleLocKey: String?
        /// `aps.alert.subtitle-loc-args`: the values for the localized subtitle's format specifiers.
        public var subtitleLocArgs: [String]?
        /// `aps.alert.loc-key`: the key of a localized body.
        public var locKey: String?
        /// `aps.alert.loc-args`: the values for the localized body's format specifiers.
        public var locArgs: [String]?
        /// `aps.alert.launch-image`: the launch image file name.
        public var launchImage: String?

        /// An alert with the given fields (every one optional).
        /// - Parameters:
        ///   - title: `title`.
        ///   - subtitle: `subtitle`.
        ///   - body: `body`.
        ///   - titleLocKey: `title-loc-key`.
        ///   - titleLocArgs: `title-loc-args`.
        ///   - subtitleLocKey: `subtitle-loc-key`.
        ///   - subtitleLocArgs: `subtitle-loc-args`.
        ///   - locKey: `loc-key`.
        ///   - locArgs: `loc-args`.
        ///   - launchImage: `launch-image`.
        public init(
            title: String? = nil, subtitle: String? = nil, body: String? = nil,
            titleLocKey: String? = nil, titleLocArgs: [String]? = nil,
            subtitleLocKey: String? = nil, subtitleLocArgs: [String]? = nil,
            locKey: String? = nil, locArgs: [String]? = nil, launchImage: String? = nil
        ) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
            self.titleLocKey = titleLocKey
            self.titleLocArgs = titleLocArgs
            self.subtitleLocKey = subtitleLocKey
            self.subtitleLocArgs = subtitleLocArgs
            self.locKey = locKey
            self.locArgs = locArgs
            self.launchImage = launchImage
        }

        /// True when the alert shows something (a title, subtitle, body or a localized key).
        public var isVisible: Bool {
            [title, subtitle, body, titleLocKey, subtitleLocKey, locKey].contains { !($0 ?? "").isEmpty }
        }
    }

    /// The whole payload, custom keys included.
    public let root: RichPushJSONValue
    /// `aps` as a dictionary.
    public let aps: [String: RichPushJSONValue]
    /// `aps.alert`, when present.
    public let alert: Alert?
    /// `aps.mutable-content` is exactly the integer 1 (the only form iOS honours).
    public let isMutableContent: Bool
    /// `aps.content-available` is the integer 1 (a background push).
    public let isContentAvailable: Bool
    /// `aps.category`.
    public let category: String?
    /// `aps.thread-id`.
    public let threadID: String?
    /// `aps.badge`.
    public let badge: Int?
    /// `aps.sound` as a name (`"default"`), or the `name` of a critical-alert sound dictionary.
    public let sound: String?

    /// Parses a payload from JSON bytes.
    ///
    /// - Parameter data: the payload as APNs delivers it (UTF-8 JSON).
    /// - Returns: the parsed payload.
    /// - Throws: `RichPushError` with code `invalid_json` (not JSON) or `invalid_payload` (not an
    ///   object, or `aps` and its members of the wrong type).
    public static func parse(_ data: Data) throws -> RichPushNotificationPayload {
        try RichPushNotificationPayload(json: RichPushJSONValue.parse(data))
    }

    /// Reads a payload from a parsed JSON value.
    ///
    /// - Parameter json: the payload root.
    /// - Throws: `RichPushError` with code `invalid_payload`, naming the member that is wrong.
    public init(json: RichPushJSONValue) throws {
        guard case .object(let object) = json else {
            throw Self.invalid("the payload is not a JSON object; it must look like {\"aps\": {…}}")
        }
        root = json
        switch object["aps"] {
        case nil:
            aps = [:]
        case .object(let a):
            aps = a
        case .some:
            throw Self.invalid("`aps` must be a dictionary, e.g. {\"aps\": {\"alert\": \"Hello\"}}")
        }
        switch aps["alert"] {
        case nil, .null:
            alert = nil
        case .string(let s):
            alert = Alert(body: s.value)
        case .object(let a):
            alert = try Self.parseAlert(a)
        case .some:
            throw Self.invalid("`aps.alert` must be a string or a dictionary with title/subtitle/body")
        }
        isMutableContent = aps["mutable-content"] == .int(1)
        isContentAvailable = aps["content-available"] == .int(1)
        category = try Self.optionalString(aps["category"], "aps.category")
        threadID = try Self.optionalString(aps["thread-id"], "aps.thread-id")
        switch aps["badge"] {
        case nil, .null: badge = nil
        case .number(let n) where n.isIntegerLiteral && n.intValue != nil: badge = n.intValue
        case .some: throw Self.invalid("`aps.badge` must be an integer")
        }
        switch aps["sound"] {
        case nil, .null: sound = nil
        case .string(let s): sound = s.value
        case .object(let d): sound = d["name"]?.stringValue
        case .some: throw Self.invalid("`aps.sound` must be a sound name or a dictionary with `name`")
        }
    }

    private static func parseAlert(_ a: [String: RichPushJSONValue]) throws -> Alert {
        func str(_ key: String) throws -> String? { try optionalString(a[key], "aps.alert.\(key)") }
        func args(_ key: String) throws -> [String]? {
            switch a[key] {
            case nil, .null: return nil
            case .array(let items):
                return try items.map {
                    guard case .string(let s) = $0 else {
                        throw invalid("`aps.alert.\(key)` must be an array of strings")
                    }
                    return s.value
                }
            case .some: throw invalid("`aps.alert.\(key)` must be an array of strings")
            }
        }
        return Alert(
            title: try str("title"), subtitle: try str("subtitle"), body: try str("body"),
            titleLocKey: try str("title-loc-key"), titleLocArgs: try args("title-loc-args"),
            subtitleLocKey: try str("subtitle-loc-key"), subtitleLocArgs: try args("subtitle-loc-args"),
            locKey: try str("loc-key"), locArgs: try args("loc-args"), launchImage: try str("launch-image")
        )
    }

    private static func optionalString(_ value: RichPushJSONValue?, _ name: String) throws -> String? {
        switch value {
        case nil, .null: return nil
        case .string(let s): return s.value
        case .some: throw invalid("`\(name)` must be a string")
        }
    }

    private static func invalid(_ message: String) -> RichPushError {
        RichPushError(code: .invalidPayload, message: message)
    }

    /// The first string found along the given key paths.
    ///
    /// - Parameter paths: key paths tried in order; the first that holds a string wins.
    /// - Returns: the path and its string, or `nil` when none holds a string.
    public func firstString(at paths: [RichPushPayloadKeyPath]) -> (path: RichPushPayloadKeyPath, value: String)? {
        for path in paths {
            if let s = path.string(in: root) { return (path, s) }
        }
        return nil
    }
}
