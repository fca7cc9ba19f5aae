import Foundation

/// One send of a push to a list of device tokens, as the provider side records it.
///
/// `sent` = tokens attempted, `accepted` = tokens APNs answered 200 for; the funnel reads
/// sent → accepted → delivered → opened, and display rate = delivered / accepted.
public struct PushSendRecord: Sendable, Equatable {
    /// The outcome of one device token.
    public struct TokenResult: Sendable, Equatable {
        /// The device token (hex).
        public var deviceToken: String
        /// The APNs HTTP status (200 = accepted), `nil` when no answer came.
        public var status: Int?
        /// The APNs `reason` string, e.g. `BadDeviceToken`.
        public var reason: String?
        /// The `apns-id` of the notification.
        public var apnsID: String?

        /// Makes a token result.
        public init(deviceToken: String, status: Int?, reason: String? = nil, apnsID: String? = nil) {
            self.deviceToken = deviceToken
            self.status = status
            self.reason = reason
            self.apnsID = apnsID
        }
    }

    /// The push (`push_id`) the receipts will name.
    public var pushID: String
    /// When it was sent, milliseconds since 1970.
    public var sentAtMs: Int
    /// A title to show on the dashboard, if any.
    public var title: String?
    /// One result per device token.
    public var tokens: [TokenResult]

    /// Makes a send record.
    public init(pushID: String, sentAtMs: Int, title: String? = nil, tokens: [TokenResult]) {
        self.pushID = pushID
        self.sentAtMs = sentAtMs
        self.title = title
        self.tokens = tokens
    }
}
