/// A push vendor whose payloads RichPush reads out of the box: how to recognise its payload,
/// where it puts the media URL and its message id, and whether that id names the message.
///
/// The catalog (`RichPushVendor.all`) is in `RichPushVendor+Catalog.swift`, each entry with the vendor's
/// SDK file or documentation it was checked against.
public struct RichPushVendor: Sendable, Hashable, CustomStringConvertible {
    /// What the vendor's id in the payload identifies.
    public struct IDKind: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// One id per message (campaign send, notification): every device's receipt for it
        /// counts towards the same push. RichPush uses it as the push id.
        public static let perMessage = IDKind(rawValue: "per_message")
        /// One id per delivery to one device: not a push id (each receipt would be a push of its
        /// own). RichPush does not use it; the sender adds `push_id`.
        public static let perDelivery = IDKind(rawValue: "per_delivery")
        /// The vendor's payload carries no message id; the sender adds `push_id`.
        public static let absent = IDKind(rawValue: "absent")
        /// The vendor's id key could not be checked against its SDK or documentation, so RichPush
        /// does not guess it; the sender adds `push_id` (or the app sets `PushIDKeyPaths`).
        public static let unverified = IDKind(rawValue: "unverified")
    }

    /// The value sent in the receipt's `vendor` field, e.g. `onesignal`.
    public let identifier: String
    /// The vendor's name, e.g. `OneSignal`.
    public let name: String
    /// Keys whose presence marks the vendor's payload (any one is enough).
    public let markers: [RichPushPayloadKeyPath]
    /// Where the vendor puts the media URL (a string, an array of URLs or a dictionary of them).
    public let mediaKeyPaths: [RichPushPayloadKeyPath]
    /// Where the vendor puts its per-message id (empty unless `idKind` is `perMessage`).
    public let pushIDKeyPaths: [RichPushPayloadKeyPath]
    /// Where the vendor puts an id RichPush does not use as the push id (per delivery).
    public let otherIDKeyPaths: [RichPushPayloadKeyPath]
    /// What the vendor's id identifies.
    public let idKind: IDKind
    /// What the sender adds when the vendor's id is not a per-message id (one sentence).
    public let note: String

    /// Makes a catalog entry.
    /// - Parameters:
    ///   - identifier: the receipt's `vendor` value.
    ///   - name: the display name.
    ///   - markers: keys whose presence marks the payload.
    ///   - mediaKeyPaths: where the media URL is.
    ///   - pushIDKeyPaths: where the per-message id is.
    ///   - otherIDKeyPaths: ids that are not per message.
    ///   - idKind: what the id identifies.
    ///   - note: what the sender adds, when needed.
    public init(
        identifier: String, name: String, markers: [RichPushPayloadKeyPath], mediaKeyPaths: [RichPushPayloadKeyPath], pushIDKeyPaths: [RichPushPayloadKeyPath],
        otherIDKeyPaths: [RichPushPayloadKeyPath] = [], idKind: IDKind, note: String = ""
    ) {
        self.identifier = identifier
        self.name = name
        self.markers = markers
        self.mediaKeyPaths = mediaKeyPaths
        self.pushIDKeyPaths = pushIDKeyPaths
        self.otherIDKeyPaths = otherIDKeyPaths
        self.idKind = idKind
        self.note = note
    }

    public var description: String { name }

    /// Whether `payload` carries one of the vendor's markers.
    /// - Parameter payload: the payload root.
    /// - Returns: `true` when a marker key is present (whatever its value).
    public func marks(_ payload: RichPushJSONValue) -> Bool {
        markers.contains { $0.lookup(in: payload) != nil }
    }

    /// The vendor whose payload this is: the first catalog entry with a marker present.
    /// - Parameter payload: the payload root.
    /// - Returns: the vendor, or `nil` for a payload of no known vendor (the articles' own).
    public static func recognise(_ payload: RichPushJSONValue) -> RichPushVendor? {
        all.first { $0.marks(payload) }
    }

    /// Why a payload of this vendor has no push id, in one sentence naming the field to add;
    /// `nil` when the vendor has a per-message id (then its absence is unexpected).
    public var missingIDExplanation: String? {
        switch idKind {
        case .perDelivery:
            return "\(name)'s \(otherIDKeyPaths.map(\.description).joined(separator: ", ")) identifies one delivery, not the message; \(note)"
        case .absent:
            return "\(name) sends no message id in the payload; \(note)"
        case .unverified:
            return "\(name)'s message id key could not be verified, so RichPush does not guess it; \(note)"
        default:
            return nil
        }
    }
}
