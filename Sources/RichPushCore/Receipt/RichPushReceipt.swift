import Foundation

/// What the extension (or the app) tells the statistics server about one notification.
///
/// Sent as `application/x-www-form-urlencoded` with `push_id` first, so article 000's server,
/// which reads only `push_id`, accepts it; a richer server reads the other fields. The same fields
/// are accepted as a JSON object.
///
/// `RichPush`-prefixed (it was `Receipt` before 0.11.0): an extension sees RichPushCore's names
/// through `import RichPushNotificationService`, and an app's own `Receipt` must not clash with it.
public struct RichPushReceipt: Sendable, Equatable, Codable {
    /// Which moment the receipt reports.
    public struct Event: Sendable, Hashable, Codable, CustomStringConvertible, RawRepresentable {
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

        /// The notification was shown (the extension handed content to the system).
        public static let delivered = Event(rawValue: "delivered")
        /// The user tapped the notification (reported by the app).
        public static let opened = Event(rawValue: "opened")
        /// Every event this version knows.
        public static let known: [Event] = [.delivered, .opened]
    }

    /// Field length bounds, in UTF-8 bytes, that senders and the server both apply.
    public enum Limits {
        /// `push_id`, `receipt_id`: at most 128 bytes.
        public static let identifierBytes = 128
        /// `reason`, `outcome`, `event`: at most 64 bytes.
        public static let codeBytes = 64
        /// `media_type`: at most 128 bytes.
        public static let mediaTypeBytes = 128
        /// `elapsed_ms`: at most 600,000 ms (10 minutes; the extension budget is ~30 s).
        public static let maximumElapsedMs = 600_000
        /// `media_bytes`: at most 100,000,000 bytes (twice Apple's 50 MB video limit).
        public static let maximumMediaBytes = 100_000_000
    }

    /// `push_id`: the push the receipt is about (at most ``Limits/identifierBytes`` bytes).
    public var pushID: String
    /// `event`: `delivered` (the extension) or `opened` (the app).
    public var event: Event
    /// `receipt_id`: stable per push and install (the extension's: the first 32 hex digits of
    /// SHA-256 of the install id and the push id), so the server counts a retried receipt once (at
    /// most ``Limits/identifierBytes`` bytes).
    public var receiptID: String?
    /// `outcome`: what the extension delivered (`media_attached`, `text_only`, `original`).
    public var outcome: RichPushOutcome?
    /// `reason`: why media was not attached, `nil` when it was.
    public var reason: RichPushReasonCode?
    /// `elapsed_ms`: how long the extension took to deliver the notification, in ms (at most
    /// ``Limits/maximumElapsedMs``).
    public var elapsedMs: Int?
    /// `media_bytes`: the attached media's size in bytes (at most ``Limits/maximumMediaBytes``).
    public var mediaBytes: Int?
    /// `media_type`: the attached media's UTType identifier, e.g. `public.jpeg` (at most
    /// ``Limits/mediaTypeBytes`` bytes).
    public var mediaType: String?
    /// Whose payload it was (`RichPushVendor.identifier`: `onesignal`, `braze`, …), `nil` for a
    /// payload of no known vendor. Servers that do not know the field ignore it.
    public var vendor: String?
    /// `device_id`: the registered device this receipt names (the `device_id` the server answered
    /// at registration, never the device token), only when the app turned per-device receipts
    /// on; `nil` for an anonymous receipt (the default).
    public var deviceID: String?
    /// `device_mac`: lowercase hex HMAC-SHA256 of ``deviceMessage`` under the device's secret,
    /// so only the device can name itself; sent with ``deviceID``.
    public var deviceMAC: String?

    /// What ``deviceMAC`` signs: `push_id`, `event` and `receipt_id` (empty when none), each
    /// followed by a line feed, as UTF-8. A captured receipt cannot be replayed for another push
    /// or event.
    public var deviceMessage: Data {
        Data((pushID + "\n" + event.rawValue + "\n" + (receiptID ?? "") + "\n").utf8)
    }

    enum CodingKeys: String, CodingKey {
        case pushID = "push_id"
        case event
        case receiptID = "receipt_id"
        case outcome, reason
        case elapsedMs = "elapsed_ms"
        case mediaBytes = "media_bytes"
        case mediaType = "media_type"
        case vendor
        case deviceID = "device_id"
        case deviceMAC = "device_mac"
    }

    /// A receipt.
    /// - Parameters:
    ///   - pushID: `push_id`.
    ///   - event: `event`, `delivered` by default.
    ///   - receiptID: `receipt_id`.
    ///   - outcome: `outcome`.
    ///   - reason: `reason`.
    ///   - elapsedMs: `elapsed_ms`, in ms.
    ///   - mediaBytes: `media_bytes`, in bytes.
    ///   - mediaType: `media_type` (a UTType identifier).
    ///   - vendor: `vendor` (``RichPushVendor/identifier``).
    public init(
        pushID: String, event: Event = .delivered, receiptID: String? = nil, outcome: RichPushOutcome? = nil,
        reason: RichPushReasonCode? = nil, elapsedMs: Int? = nil, mediaBytes: Int? = nil, mediaType: String? = nil, vendor: String? = nil
    ) {
        self.pushID = pushID
        self.event = event
        self.receiptID = receiptID
        self.outcome = outcome
        self.reason = reason
        self.elapsedMs = elapsedMs
        self.mediaBytes = mediaBytes
        self.mediaType = mediaType
        self.vendor = vendor
    }

    /// The form body, `push_id` first: `push_id=2018001&event=delivered&…`.
    ///
    /// - Returns: the body, percent-encoded as `application/x-www-form-urlencoded`.
    public func formEncoded() -> String {
        var fields: [(String, String)] = [("push_id", pushID), ("event", event.rawValue)]
        if let receiptID { fields.append(("receipt_id", receiptID)) }
        if let outcome { fields.append(("outcome", outcome.rawValue)) }
        if let reason { fields.append(("reason", reason.rawValue)) }
        if let elapsedMs { fields.append(("elapsed_ms", String(elapsedMs))) }
        if let mediaBytes { fields.append(("media_bytes", String(mediaBytes))) }
        if let mediaType { fields.append(("media_type", mediaType)) }
        if let vendor { fields.append(("vendor", vendor)) }
        if let deviceID, let deviceMAC {
            fields.append(("device_id", deviceID))
            fields.append(("device_mac", deviceMAC))
        }
        return fields.map { "\(Self.formEscape($0.0))=\(Self.formEscape($0.1))" }.joined(separator: "&")
    }

    /// Percent-encodes a form field name or value (space as `+`).
    static func formEscape(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        let ascii = CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127))
        allowed.formIntersection(ascii)
        return (s.addingPercentEncoding(withAllowedCharacters: allowed.union(CharacterSet(charactersIn: " "))) ?? s)
            .replacingOccurrences(of: " ", with: "+")
    }
}
