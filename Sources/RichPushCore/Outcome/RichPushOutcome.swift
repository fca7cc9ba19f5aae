/// What the extension delivered for one notification.
///
/// A struct over a string, not a public enum, so that a newer server or client can add values
/// without breaking older code (the APNSwift pattern).
///
/// `RichPush`-prefixed (it was `Outcome` before 0.11.0) so that it cannot clash with an app's own
/// `Outcome`: an extension sees RichPushCore's names through `import RichPushNotificationService`.
public struct RichPushOutcome: Sendable, Hashable, Codable, CustomStringConvertible, RawRepresentable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
    public var description: String { rawValue }

    /// The media was downloaded and attached.
    public static let mediaAttached = RichPushOutcome(rawValue: "media_attached")
    /// The best-attempt content (edited text, no media) was delivered.
    public static let textOnly = RichPushOutcome(rawValue: "text_only")
    /// The request's content was delivered unchanged (e.g. a payload that could not be read).
    public static let original = RichPushOutcome(rawValue: "original")

    /// Every outcome this version knows.
    public static let known: [RichPushOutcome] = [.mediaAttached, .textOnly, .original]
}
