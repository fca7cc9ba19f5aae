/// Why media was not attached; shared by the extension, the receipts and the statistics.
///
/// `nil` (no reason) when media was attached. A struct over a string so unknown codes from a newer
/// client are kept, not dropped.
public struct ReasonCode: Sendable, Hashable, Codable, CustomStringConvertible, RawRepresentable {
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
    public static let noMedia = ReasonCode(rawValue: "no_media")
    /// The media URL cannot be parsed, or has no http(s) scheme or no host.
    public static let badURL = ReasonCode(rawValue: "bad_url")
    /// A cleartext `http://` URL (or redirect hop) to a host without an ATS exception.
    public static let insecureScheme = ReasonCode(rawValue: "insecure_scheme")
    /// The media server answered with a non-2xx status.
    public static let httpStatus = ReasonCode(rawValue: "http_status")
    /// The body is not a media file (HTML, JSON, empty…).
    public static let notMedia = ReasonCode(rawValue: "not_media")
    /// Known media that iOS does not attach (WebP, HEIC, SVG, HLS, TIFF, BMP).
    public static let unsupportedFormat = ReasonCode(rawValue: "unsupported_format")
    /// Over Apple's limit for the type (image 10 MB, audio 5 MB, video 50 MB).
    public static let tooLarge = ReasonCode(rawValue: "too_large")
    /// The deadline passed before the media arrived.
    public static let timeout = ReasonCode(rawValue: "timeout")
    /// More than 5 redirects.
    public static let redirectLimit = ReasonCode(rawValue: "redirect_limit")
    /// The connection failed (DNS, refused, reset, TLS).
    public static let network = ReasonCode(rawValue: "network")
    /// An encrypted payload could not be decrypted.
    public static let decryptFailed = ReasonCode(rawValue: "decrypt_failed")
    /// The payload is not a JSON object or its `aps` is malformed.
    public static let invalidPayload = ReasonCode(rawValue: "invalid_payload")

    /// Every reason this version knows, in documentation order.
    public static let known: [ReasonCode] = [
        .noMedia, .badURL, .insecureScheme, .httpStatus, .notMedia, .unsupportedFormat, .tooLarge,
        .timeout, .redirectLimit, .network, .decryptFailed, .invalidPayload,
    ]
}
