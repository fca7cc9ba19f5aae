import Foundation

/// Device registrations and the token lifecycle: tokens the app registered (with platform and an
/// optional user id), and tokens a provider called inactive or bad, which later sends skip until
/// the app registers them again. Every `ReceiptStore` is one.
public protocol DeviceStore: AnyObject, Sendable {
    /// Registers a device token, or registers it again (replacing platform, user id and app
    /// version, and making a token recorded inactive, bad or deleted before now sendable again).
    ///
    /// - Parameter registration: the registration (`registeredAtMs` = now).
    /// - Returns: `true` when the token was not registered before.
    /// - Throws: `RichPushError` `store`.
    func registerDevice(_ registration: DeviceRegistration) throws -> Bool

    /// Registers several devices in one transaction (`POST /v1/devices`, `POST /v1/devices/batch`),
    /// each as `registerDevice(_:)` does, and gives each its credential: the `device_id` and
    /// secret it keeps while registered (made on its first registration, or the registration's
    /// `credential`). A token given twice is registered in order (the last values stay).
    ///
    /// - Parameter registrations: the registrations, in order.
    /// - Returns: one result per registration, in order.
    /// - Throws: `RichPushError` `store` (nothing is registered).
    func registerDevices(_ registrations: [DeviceRegistration]) throws -> [DeviceRegistered]

    /// Removes a registration (the app logged out or turned notifications off): the token is no
    /// longer found by user id, and sends to it are skipped until it registers again.
    ///
    /// - Parameters:
    ///   - token: the token.
    ///   - atMs: when, ms since 1970.
    /// - Returns: `true` when it was registered.
    /// - Throws: `RichPushError` `store`.
    func unregisterDevice(_ token: String, atMs: Int) throws -> Bool

    /// The registered devices of some users, most recently registered first.
    ///
    /// - Parameters:
    ///   - userIDs: the user ids.
    ///   - limit: the most devices to return.
    /// - Returns: the registrations.
    /// - Throws: `RichPushError` `store`.
    func devices(ofUsers userIDs: [String], limit: Int) throws -> [DeviceRegistration]

    /// The registration of one token, `nil` when it is not registered.
    ///
    /// - Parameter token: the token.
    /// - Returns: the registration.
    /// - Throws: `RichPushError` `store`.
    func device(_ token: String) throws -> DeviceRegistration?

    /// Which of these tokens a send must skip: recorded inactive, bad or deleted, and not
    /// registered again since.
    ///
    /// - Parameter tokens: the tokens of a send (at most 10,000).
    /// - Returns: the skipped ones, with why.
    /// - Throws: `RichPushError` `store`.
    func skippedTokens(among tokens: [String]) throws -> [String: TokenSkip]
}

extension DeviceStore {
    /// Default: each registration through `registerDevice(_:)`, one transaction each; the
    /// credentials answered are made here and not kept (a store without credentials keeps no
    /// recipients either: its receipts stay anonymous).
    ///
    /// - Parameter registrations: the registrations, in order.
    /// - Returns: one result per registration.
    /// - Throws: `RichPushError` `store`.
    public func registerDevices(_ registrations: [DeviceRegistration]) throws -> [DeviceRegistered] {
        try registrations.map { registration in
            let credential = registration.credential ?? DeviceRegistered.newCredential()
            return DeviceRegistered(
                created: try registerDevice(registration), deviceID: credential.deviceID, deviceSecret: credential.secret,
                recipientReceipts: registration.recipientReceipts ?? false)
        }
    }
}
