/// Why a device token is left out of a send: what a provider (or the app) said about it, and
/// since when; it is sent to again once the app registers it after that time.
public struct TokenSkip: Sendable, Equatable {
    /// `inactive` (APNs 410 / FCM `UNREGISTERED`), `bad` (wrong for the app, environment or
    /// project) or `deleted` (the app removed its registration with `DELETE /v1/devices`).
    public var state: PushSendRecord.TokenState
    /// The provider's reason (`Unregistered`, `BadDeviceToken`, `UNREGISTERED`, …), if any.
    public var reason: String?
    /// Since when, ms since 1970 (APNs' `timestamp` for a 410, else when it was recorded).
    public var sinceMs: Int

    /// Makes a skip.
    public init(state: PushSendRecord.TokenState, reason: String?, sinceMs: Int) {
        self.state = state
        self.reason = reason
        self.sinceMs = sinceMs
    }
}
