import Foundation

/// One batch of sends of a push, as the provider side records it: RichPush's own sends through
/// APNs or FCM (`POST /v1/pushes`), or the counts or per-token outcomes of a push another system
/// sent (`POST /v1/pushes/{push_id}/sends`: OneSignal, a plain backend).
///
/// `sent` = tokens the provider answered for (tokens never sent, e.g. malformed, skipped, or after
/// a configuration error stopped the batch, are kept per token but not counted), `accepted` =
/// tokens the provider accepted; the funnel reads sent → accepted → delivered → opened, and
/// display rate = delivered / accepted. A batch with a `batchID` is recorded once: the same id
/// again is a duplicate (a retry), whatever process or instance sends it.
public struct PushSendRecord: Sendable, Equatable {
    /// What APNs said about a device token, kept in `device_tokens`. A struct over a string.
    public struct TokenState: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        /// 410 `Unregistered` / `ExpiredToken`: stop sending until the app registers again.
        public static let inactive = TokenState(rawValue: "inactive")
        /// `BadDeviceToken` / `DeviceTokenNotForTopic` (FCM: `INVALID_ARGUMENT` for the token,
        /// `SENDER_ID_MISMATCH`): wrong token for this topic, environment or project.
        public static let bad = TokenState(rawValue: "bad")
        /// The app removed its registration (`DELETE /v1/devices/{token}`).
        public static let deleted = TokenState(rawValue: "deleted")
    }

    /// Totals reported by a system that sent the push without per-token results.
    public struct Counts: Sendable, Equatable {
        /// Tokens the provider answered for.
        public var sent: Int
        /// Tokens the provider accepted.
        public var accepted: Int
        /// Tokens left out (known inactive or bad).
        public var skipped: Int

        /// Makes counts.
        public init(sent: Int, accepted: Int, skipped: Int = 0) {
            self.sent = sent
            self.accepted = accepted
            self.skipped = skipped
        }
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
        /// Whether the provider answered for the token; `nil` = when it has a `status`.
        public var answered: Bool?

        /// Whether the token counts as sent.
        public var wasSent: Bool { answered ?? (status != nil) }
        /// Whether the provider accepted it (HTTP 200 or outcome `accepted`).
        public var wasAccepted: Bool { status == 200 || outcome == "accepted" }
        /// Whether it was left out as known inactive or bad.
        public var wasSkipped: Bool { outcome == "skipped" }

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
    /// One result per device token (empty when only `reportedCounts` are known).
    public var tokens: [TokenResult]
    /// Where the figures come from: `apns`, `fcm` (RichPush sent it), or the name the recorder
    /// gave (`onesignal`, `backend`, …).
    public var source: String
    /// The idempotency key: a batch with the same push id and batch id is recorded once.
    /// `nil` = always a new batch.
    public var batchID: String?
    /// Totals from a system that reports no per-token results; used instead of counting `tokens`.
    public var reportedCounts: Counts?
    /// Webhook events to write to the outbox in the same transaction (when the batch is recorded,
    /// not for a duplicate); empty without webhooks.
    public var webhookDeliveries: [WebhookDelivery] = []

    /// Makes a send record.
    public init(
        pushID: String, sentAtMs: Int, title: String? = nil, tokens: [TokenResult], source: String = "apns",
        batchID: String? = nil, reportedCounts: Counts? = nil
    ) {
        self.pushID = pushID
        self.sentAtMs = sentAtMs
        self.title = title
        self.tokens = tokens
        self.source = source
        self.batchID = batchID
        self.reportedCounts = reportedCounts
    }

    /// The batch's totals: `reportedCounts`, else counted from `tokens`.
    public var counts: Counts {
        if let reportedCounts { return reportedCounts }
        var c = Counts(sent: 0, accepted: 0, skipped: 0)
        for t in tokens {
            if t.wasSent { c.sent += 1 }
            if t.wasAccepted { c.accepted += 1 }
            if t.wasSkipped { c.skipped += 1 }
        }
        return c
    }
}
