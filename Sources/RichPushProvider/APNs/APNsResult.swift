import Foundation
import RichPushCore

/// The result for one device token: what APNs said and what RichPush did about it.
public struct APNsResult: PushTokenResult {
    /// The device token (hex).
    public var deviceToken: String
    /// What became of the notification.
    public var outcome: APNsOutcome
    /// The `apns-id` APNs returned (or the one sent).
    public var apnsID: String?
    /// The last HTTP status, `nil` when no response arrived.
    public var status: Int?
    /// APNs' `reason`, verbatim; `nil` for 200.
    public var reason: APNsReason?
    /// For 410: when APNs last knew the token to be valid (its `timestamp`, ms since 1970).
    public var timestamp: Date?
    /// Requests made for this token (retries and token renewal included).
    public var attempts: Int
    /// What to do, for errors (sandbox vs production hint, what to fix).
    public var message: String?
    /// The start of a body that was not APNs' JSON (a proxy's error page), shown once per batch.
    public var unexpectedBody: String?

    /// `reason`'s string.
    public var reasonCode: String? { reason?.rawValue }
    /// The `apns-id`.
    public var providerMessageID: String? { apnsID }
    /// For 410: APNs' `timestamp`.
    public var inactiveSince: Date? { outcome == .tokenInactive ? timestamp : nil }

    /// The result as one JSON object: token, apns-id, status, reason, outcome, attempts, message.
    public var jsonValue: JSONValue {
        var o: [String: JSONValue] = [
            "token": .string(deviceToken),
            "outcome": .string(outcome.rawValue),
            "attempts": .int(attempts),
        ]
        o["apns-id"] = apnsID.map(JSONValue.string) ?? .null
        o["status"] = status.map(JSONValue.int) ?? .null
        o["reason"] = reason.map { .string($0.rawValue) } ?? .null
        if let timestamp { o["timestamp"] = .int(Int(timestamp.timeIntervalSince1970 * 1000)) }
        if let message { o["message"] = .string(message) }
        return .object(o)
    }
}
