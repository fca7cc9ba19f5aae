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
    /// A new credential for the device, used only when it has none yet (a device keeps its
    /// `device_id` and secret while registered); `nil` = the store makes one.
    public var credential: DeviceRegistered.Credential?
    /// Whether the app's receipts name the device (the extension's per-device setting is on);
    /// `nil` = keep what was registered (off for a new token).
    public var recipientReceipts: Bool?

    /// Makes a registration.
    public init(
        token: String, provider: String, platform: String, userID: String? = nil, appVersion: String? = nil, registeredAtMs: Int,
        tags: [String]? = nil, recipientReceipts: Bool? = nil
    ) {
        self.tags = tags
        self.recipientReceipts = recipientReceipts
        self.token = token
        self.provider = provider
        self.platform = platform
        self.userID = userID
        self.appVersion = appVersion
        self.registeredAtMs = registeredAtMs
    }
}

/// What a registration came to (`DeviceStore.registerDevices`).
public struct DeviceRegistered: Sendable, Equatable {
    /// Whether the token was not registered before.
    public var created: Bool
    /// The device's id (`dev_` + 32 hex digits), what a receipt names: kept while it stays registered.
    public var deviceID: String
    /// The device's secret (64 hex digits): the key of its receipts' HMAC. Kept with the id.
    public var deviceSecret: String
    /// Whether its receipts name it (`recipient_receipts`).
    public var recipientReceipts: Bool

    /// Makes a result.
    public init(created: Bool, deviceID: String, deviceSecret: String, recipientReceipts: Bool) {
        self.created = created
        self.deviceID = deviceID
        self.deviceSecret = deviceSecret
        self.recipientReceipts = recipientReceipts
    }

    /// A device's id and secret.
    public struct Credential: Sendable, Equatable {
        /// `dev_` + 32 hex digits.
        public var deviceID: String
        /// 64 hex digits.
        public var secret: String

        /// Makes a credential.
        public init(deviceID: String, secret: String) {
            self.deviceID = deviceID
            self.secret = secret
        }
    }

    /// A new device credential: `dev_` + 128 random bits as hex, and a 256-bit secret as hex, from
    /// the system's cryptographic random source.
    ///
    /// - Returns: the id and the secret.
    public static func newCredential() -> Credential {
        var generator = SystemRandomNumberGenerator()
        func hex(_ bytes: Int) -> String {
            (0..<bytes).map { _ in
                let byte = UInt8.random(in: 0...255, using: &generator)
                return (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }.joined()
        }
        return Credential(deviceID: "dev_" + hex(16), secret: hex(32))
    }
}
