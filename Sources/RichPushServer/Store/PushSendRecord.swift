import Foundation

/// One send of a push to a list of device tokens, as the provider side records it.
///
/// `sent` = tokens APNs answered for (a `status`; tokens never sent, e.g. malformed or after a
/// configuration error stopped the batch, are kept per token but not counted), `accepted` =
/// tokens APNs answered 200 for; the funnel reads sent → accepted → delivered → opened, and
/// display rate = delivered / accepted.
public struct PushSendRecord: Sendable, Equatable {
    /// What APNs said about a device token, kept in `device_tokens`. A struct over a string.
    public struct TokenState: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        /// 410 `Unregistered` / `ExpiredToken`: stop sending until the app registers again.
        public static let inactive = TokenState(rawValue: "inactive")
        /// `BadDeviceToken` / `DeviceTokenNotForTopic`: wrong token for this topic or environment.
        public static let bad = TokenState(rawValue: "bad")
    }

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
        /// The provider's verdict (`accepted`, `token_inactive`, `token_bad`, `not_sent`, …).
        public var outcome: String?
        /// The token's new state, when APNs judged the token itself (410, bad token).
        public var state: TokenState?
        /// For 410: APNs' `timestamp` (the token was last valid then), ms since 1970.
        public var inactiveSinceMs: Int?

        /// Makes a token result.
        public init(
            deviceToken: String, status: Int?, reason: String? = nil, apnsID: String? = nil, outcome: String? = nil,
            state: TokenState? = nil, inactiveSinceMs: Int? = nil
        ) {
            self.deviceToken = deviceToken
            self.status = status
            self.reason = reason
            self.apnsID = apnsID
            self.outcome = outcome
            self.state = state
            self.inactiveSinceMs = inactiveSinceMs
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
