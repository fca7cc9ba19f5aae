/// Why media was not attached (or, for a communication notification, why the message was shown
/// as a normal notification); shared by the extension, the receipts and the statistics.
///
/// `nil` (no reason) when media was attached and nothing else failed. A struct over a string so unknown codes from a newer
/// client are kept, not dropped.
///
/// `RichPush`-prefixed (it was `ReasonCode` before 0.11.0) so that it cannot clash with an app's own
/// `ReasonCode`: an extension sees RichPushCore's names through `import RichPushNotificationService`.
public struct RichPushReasonCode: Sendable, Hashable, Codable, CustomStringConvertible, RawRepresentable {
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

    /// The payload names no media (no key, or an empty value).
    public static let noMedia = RichPushReasonCode(rawValue: "no_media")
    /// The media URL cannot be parsed, or has no http(s) scheme or no host.
    public static let badURL = RichPushReasonCode(rawValue: "bad_url")
    /// A cleartext `http://` URL (or redirect hop) to a host without an ATS exception.
    public static let insecureScheme = RichPushReasonCode(rawValue: "insecure_scheme")
    /// The media server answered with a non-2xx status.
    public static let httpStatus = RichPushReasonCode(rawValue: "http_status")
    /// The body is not a media file (HTML, JSON, empty…).
    public static let notMedia = RichPushReasonCode(rawValue: "not_media")
    /// Known media that iOS does not attach (WebP, HEIC, SVG, HLS, TIFF, BMP).
    public static let unsupportedFormat = RichPushReasonCode(rawValue: "unsupported_format")
    /// Over Apple's limit for the type (image 10 MB, audio 5 MB, video 50 MB).
    public static let tooLarge = RichPushReasonCode(rawValue: "too_large")
    /// The deadline passed before the media arrived.
    public static let timeout = RichPushReasonCode(rawValue: "timeout")
    /// More than 5 redirects.
    public static let redirectLimit = RichPushReasonCode(rawValue: "redirect_limit")
    /// The connection failed (DNS, refused, reset, TLS).
    public static let network = RichPushReasonCode(rawValue: "network")
    /// An encrypted payload could not be decrypted.
    public static let decryptFailed = RichPushReasonCode(rawValue: "decrypt_failed")
    /// The payload is not a JSON object or its `aps` is malformed.
    public static let invalidPayload = RichPushReasonCode(rawValue: "invalid_payload")
    /// A communication notification's avatar (the sender's or the group's) could not be fetched
    /// or converted within the deadline: the normal notification was shown instead.
    public static let avatarFailed = RichPushReasonCode(rawValue: "avatar_failed")
    /// A communication notification's intent (`INSendMessageIntent`) could not be made, donated or
    /// applied to the content (or the payload's `sender` is malformed): the normal notification
    /// was shown instead.
    public static let intentFailed = RichPushReasonCode(rawValue: "intent_failed")

    /// Every reason this version knows, in documentation order.
    public static let known: [RichPushReasonCode] = [
        .noMedia, .badURL, .insecureScheme, .httpStatus, .notMedia, .unsupportedFormat, .tooLarge,
        .timeout, .redirectLimit, .network, .decryptFailed, .invalidPayload, .avatarFailed, .intentFailed,
    ]
}
