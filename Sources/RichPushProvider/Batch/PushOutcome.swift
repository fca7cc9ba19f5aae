/// What became of one notification for one device token, whichever provider sent it (APNs,
/// FCM, or another system whose results are recorded). A struct over a string.
public struct PushOutcome: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// APNs 200 / FCM 200: the provider accepted it (counts as `accepted` in the funnel).
    public static let accepted = PushOutcome(rawValue: "accepted")
    /// APNs 410 / FCM `UNREGISTERED`: the token is no longer active; the token-state handler was told.
    public static let tokenInactive = PushOutcome(rawValue: "token_inactive")
    /// APNs 410, but the app registered the token again after APNs' timestamp: keep it.
    public static let tokenReRegistered = PushOutcome(rawValue: "token_reregistered")
    /// APNs `BadDeviceToken` / `DeviceTokenNotForTopic`, FCM `INVALID_ARGUMENT` for the token or
    /// `SENDER_ID_MISMATCH`: the token is wrong for this app, environment or project.
    public static let tokenBad = PushOutcome(rawValue: "token_bad")
    /// 429 / 5xx / a dropped connection (FCM `QUOTA_EXCEEDED`, `UNAVAILABLE`, `INTERNAL`), still
    /// failing after the last retry.
    public static let retriesExhausted = PushOutcome(rawValue: "retries_exhausted")
    /// The request was written and no answer came (the connection was lost, the stream was reset,
    /// or the request timed out): the provider may have accepted it or not. Not sent again, so the
    /// device shows it at most once; a notification with an `apns-collapse-id` is sent again
    /// instead (the device then shows one), so it never ends here.
    public static let unknown = PushOutcome(rawValue: "unknown")
    /// A configuration or request error (key, team, topic, certificate, service account,
    /// project, headers) that fails every request: the batch stopped here.
    public static let configurationError = PushOutcome(rawValue: "configuration_error")
    /// Another rejection (an unknown reason or error code, kept verbatim).
    public static let rejected = PushOutcome(rawValue: "rejected")
    /// Not sent: the batch stopped before this token.
    public static let notSent = PushOutcome(rawValue: "not_sent")
    /// Not sent: the token was recorded inactive (410 / `UNREGISTERED`) or bad on an earlier send
    /// and the app has not registered it again since.
    public static let skipped = PushOutcome(rawValue: "skipped")
}

/// The APNs name of `PushOutcome` (the same outcomes serve every provider).
public typealias APNsOutcome = PushOutcome
