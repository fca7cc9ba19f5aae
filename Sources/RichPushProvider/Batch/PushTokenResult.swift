import Foundation
import RichPushCore

/// One device token's final result from a provider (`APNsResult`, `FCMSendResult`).
public protocol PushTokenResult: Sendable {
    /// The device token (APNs: hex; FCM: the registration token).
    var deviceToken: String { get }
    /// What became of the notification.
    var outcome: PushOutcome { get }
    /// The last HTTP status, `nil` when no response arrived (then the token does not count as sent).
    var status: Int? { get }
    /// The provider's reason or error code, verbatim (`Unregistered`, `UNREGISTERED`), if any.
    var reasonCode: String? { get }
    /// The provider's id for the notification (`apns-id`, FCM's message name), if any.
    var providerMessageID: String? { get }
    /// Requests made for this token (retries included).
    var attempts: Int { get }
    /// What to do, for errors.
    var message: String? { get }
    /// For a token the provider called inactive: since when (APNs' `timestamp`), if given.
    var inactiveSince: Date? { get }
    /// The start of a response body that was not the provider's JSON (an HTML error page of a
    /// proxy), at most 200 characters; printed once per batch, not per token.
    var unexpectedBody: String? { get }
    /// The result as one JSON line for `richpush send`.
    var jsonValue: RichPushJSONValue { get }

    /// Appends `jsonValue` as compact JSON with sorted keys (the same bytes), without building
    /// the value first: `richpush send` writes one line per device token.
    /// - Parameter out: the buffer.
    func writeJSON(into out: inout [UInt8])
}

extension PushTokenResult {
    /// `jsonValue.write(into:)`.
    /// - Parameter out: the buffer.
    public func writeJSON(into out: inout [UInt8]) { jsonValue.write(into: &out) }
}
