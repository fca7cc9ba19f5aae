import Foundation

/// A device token as the app registered it with `POST /v1/devices`.
public struct DeviceRegistration: Sendable, Equatable {
    /// The token: APNs hex (stored lower-case) or an FCM registration token (as given).
    public var token: String
    /// Which provider the token is for: `apns` or `fcm`.
    public var provider: String
    /// `ios`, `ipados`, `macos`, `tvos`, `watchos`, `visionos`, `android` or `web`.
    public var platform: String
    /// The app's user id, when the registration was verified for it (see `POST /v1/devices`).
    public var userID: String?
    /// The app's version, e.g. `2.4.1 (812)`.
    public var appVersion: String?
    /// When it was registered (or last registered again), ms since 1970.
    public var registeredAtMs: Int
    /// The device's tags for campaign audiences (`{"tags": {"any": […]}}`); `nil` = keep the
    /// tags registered before (none for a new token), `[]` = remove them.
    public var tags: [String]?

    /// Makes a registration.
    public init(
        token: String, provider: String, platform: String, userID: String? = nil, appVersion: String? = nil, registeredAtMs: Int,
        tags: [String]? = nil
    ) {
        self.tags = tags
        self.token = token
        self.provider = provider
        self.platform = platform
        self.userID = userID
        self.appVersion = appVersion
        self.registeredAtMs = registeredAtMs
    }
}
