import Foundation

/// Where APNs' verdicts about device tokens go (a token store: the stats server's database, …).
///
/// The APNs client calls it on 410 (`Unregistered`, `ExpiredToken`) and on `BadDeviceToken` /
/// `DeviceTokenNotForTopic`; `lastRegistration(of:)` lets it keep a token that the app registered
/// again after APNs' timestamp (Apple: stop sending to a 410 token "unless it registered again later").
public protocol DeviceTokenStateHandler: Sendable {
    /// When the app last registered this token with the provider, if known.
    /// - Parameter deviceToken: the hex token.
    /// - Returns: the registration time, or `nil`.
    func lastRegistration(of deviceToken: String) async -> Date?
    /// APNs says the token is no longer active (410) since `timestamp`; stop sending to it.
    /// - Parameters:
    ///   - deviceToken: the hex token.
    ///   - timestamp: APNs' `timestamp`, when given.
    func deviceTokenBecameInactive(_ deviceToken: String, since timestamp: Date?) async
    /// APNs says the token is bad for this topic or environment.
    /// - Parameters:
    ///   - deviceToken: the hex token.
    ///   - reason: `BadDeviceToken` or `DeviceTokenNotForTopic`.
    ///   - hint: what probably went wrong (sandbox vs production, another app's token).
    func deviceTokenIsBad(_ deviceToken: String, reason: APNsReason, hint: String) async
}
