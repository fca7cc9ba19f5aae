/// The kind of a webhook event (its `type` field). A struct over a string, so that a receiver's
/// unknown type is still a value.
public struct WebhookEventType: Sendable, Hashable, RawRepresentable, CustomStringConvertible, Comparable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (a: WebhookEventType, b: WebhookEventType) -> Bool { a.rawValue < b.rawValue }

    /// APNs answered 410 (`Unregistered`, `ExpiredToken`) or FCM `UNREGISTERED` for a token during
    /// a send: the app was removed or the token expired; later sends skip it until the app
    /// registers it again. Subject: the device token.
    public static let tokenInactive = WebhookEventType(rawValue: "token.inactive")
    /// The provider called the token wrong for the topic, environment or project
    /// (`BadDeviceToken`, `DeviceTokenNotForTopic`; FCM `INVALID_ARGUMENT` for the token,
    /// `SENDER_ID_MISMATCH`). Subject: the device token.
    public static let tokenBad = WebhookEventType(rawValue: "token.bad")
    /// A `POST /v1/pushes` send finished and was recorded: its counts. Subject: the push id.
    public static let pushSent = WebhookEventType(rawValue: "push.sent")
    /// A media URL of a push was refused at send (the probe found the extension could not
    /// attach it). Subject: the push id.
    public static let mediaRefused = WebhookEventType(rawValue: "media.refused")
    /// A campaign finished sending. Subject: the campaign id.
    public static let campaignFinished = WebhookEventType(rawValue: "campaign.finished")

    /// Every type RichPush sends, in documentation order.
    public static let all: [WebhookEventType] = [.tokenInactive, .tokenBad, .pushSent, .mediaRefused, .campaignFinished]
}
