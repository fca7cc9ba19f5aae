/// What became of one notification for one device token. A struct over a string.
public struct APNsOutcome: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// 200: APNs accepted it (counts as `accepted` in the funnel).
    public static let accepted = APNsOutcome(rawValue: "accepted")
    /// 410: the token is no longer active; the token-state handler was told.
    public static let tokenInactive = APNsOutcome(rawValue: "token_inactive")
    /// 410, but the app registered the token again after APNs' timestamp: keep it.
    public static let tokenReRegistered = APNsOutcome(rawValue: "token_reregistered")
    /// `BadDeviceToken` / `DeviceTokenNotForTopic`: the token is wrong for this topic or
    /// environment; the token-state handler was told.
    public static let tokenBad = APNsOutcome(rawValue: "token_bad")
    /// 429 / 5xx / a dropped connection, still failing after the last retry.
    public static let retriesExhausted = APNsOutcome(rawValue: "retries_exhausted")
    /// A configuration or request error (key, team, topic, certificate, headers) that fails every
    /// request: the batch stopped here.
    public static let configurationError = APNsOutcome(rawValue: "configuration_error")
    /// Another rejection (an unknown reason, kept verbatim in `reason`).
    public static let rejected = APNsOutcome(rawValue: "rejected")
    /// Not sent: the batch stopped before this token.
    public static let notSent = APNsOutcome(rawValue: "not_sent")
}
