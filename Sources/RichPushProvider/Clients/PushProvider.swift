/// A push provider RichPush sends through: Apple's APNs, or Google's FCM HTTP v1 (which hands
/// the notification to APNs for iOS apps). Spelled `apns` / `fcm` on the wire, in the store and
/// on the command line.
public enum PushProvider: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Apple Push Notification service (HTTP/2, `POST /3/device/<token>`).
    case apns
    /// Firebase Cloud Messaging HTTP v1 (`POST /v1/projects/<id>/messages:send`).
    case fcm

    /// The provider a command-line value names, in any case (`APNs`, `fcm`).
    ///
    /// - Parameter value: what was given.
    /// - Returns: the provider, `nil` when `value` names none.
    public init?(caseInsensitive value: String) {
        self.init(rawValue: value.lowercased())
    }

    /// The wire spelling: `apns` or `fcm`.
    public var description: String { rawValue }

    /// The provider's name in messages: `APNs` or `FCM`.
    public var displayName: String {
        switch self {
        case .apns: "APNs"
        case .fcm: "FCM"
        }
    }
}
