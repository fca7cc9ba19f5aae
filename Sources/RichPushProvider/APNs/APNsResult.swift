import Foundation
import RichPushCore

/// The result for one device token: what APNs said and what RichPush did about it.
public struct APNsResult: PushTokenResult, DeliveredTokenResult {
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

    /// Makes a result without an answer read yet.
    ///
    /// - Parameters:
    ///   - deviceToken: the hex token.
    ///   - outcome: the outcome so far.
    ///   - attempts: requests made.
    ///   - message: what to do, if anything.
    public init(deviceToken: String, outcome: APNsOutcome, attempts: Int, message: String? = nil) {
        self.deviceToken = deviceToken
        self.outcome = outcome
        self.attempts = attempts
        self.message = message
    }

    /// `reason`'s string.
    public var reasonCode: String? { reason?.rawValue }
    /// The `apns-id`.
    public var providerMessageID: String? { apnsID }
    /// For 410: APNs' `timestamp`.
    public var inactiveSince: Date? { outcome == .tokenInactive ? timestamp : nil }

    /// The latest `timestamp` taken from APNs: 9999-12-31T23:59:59.999Z, in ms since 1970.
    public static let maximumTimestampMs = 253_402_300_799_999

    /// `timestamp` in milliseconds since 1970, `nil` without one (never traps: a value set from
    /// outside `0…maximumTimestampMs` is `nil`).
    public var timestampMs: Int? { timestamp.flatMap(Self.milliseconds) }

    /// A date as whole milliseconds since 1970 when within `0…maximumTimestampMs`, else `nil`.
    ///
    /// - Parameter date: the date.
    /// - Returns: the milliseconds, or `nil`.
    public static func milliseconds(_ date: Date) -> Int? {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        guard ms.isFinite, ms >= 0, ms <= Double(maximumTimestampMs) else { return nil }
        return Int(exactly: ms)
    }

    /// APNs' `timestamp` field of a 410 (ms since 1970) as a date; `nil` when absent, not a number,
    /// or outside 1970…9999 (e.g. `1e19`, which does not fit an `Int`): the token is still
    /// recorded Unregistered, just without a date.
    ///
    /// - Parameter value: the field's JSON value, if any.
    /// - Returns: the date, or `nil`.
    public static func timestamp(_ value: RichPushJSONValue?) -> Date? {
        guard let ms = value?.doubleValue, ms.isFinite, ms >= 0, ms <= Double(maximumTimestampMs) else { return nil }
        return Date(timeIntervalSince1970: ms / 1000)
    }

    /// The result as one JSON object: token, apns-id, status, reason, outcome, attempts, message.
    public var jsonValue: RichPushJSONValue {
        var o: [String: RichPushJSONValue] = [
            "token": .string(deviceToken),
            "outcome": .string(outcome.rawValue),
            "attempts": .int(attempts),
        ]
        o["apns-id"] = apnsID.map(RichPushJSONValue.string) ?? .null
        o["status"] = status.map(RichPushJSONValue.int) ?? .null
        o["reason"] = reason.map { .string($0.rawValue) } ?? .null
        if let ms = timestampMs { o["timestamp"] = .int(ms) }
        if let message { o["message"] = .string(message) }
        return .object(o)
    }

    /// Appends `jsonValue` as compact JSON, keys in sorted order (the same bytes as
    /// `jsonValue.write(into:)`), field by field.
    /// - Parameter out: the buffer.
    public func writeJSON(into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        RichPushJSONValue.writeField("apns-id", apnsID, into: &out)
        out.append(UInt8(ascii: ","))
        RichPushJSONValue.writeField("attempts", attempts, into: &out)
        if let message {
            out.append(UInt8(ascii: ","))
            RichPushJSONValue.writeField("message", message, into: &out)
        }
        out.append(UInt8(ascii: ","))
        RichPushJSONValue.writeField("outcome", outcome.rawValue, into: &out)
        out.append(UInt8(ascii: ","))
        RichPushJSONValue.writeField("reason", reason?.rawValue, into: &out)
        out.append(UInt8(ascii: ","))
        RichPushJSONValue.writeField("status", status, into: &out)
        if let ms = timestampMs {
            out.append(UInt8(ascii: ","))
            RichPushJSONValue.writeField("timestamp", ms, into: &out)
        }
        out.append(UInt8(ascii: ","))
        RichPushJSONValue.writeField("token", deviceToken, into: &out)
        out.append(UInt8(ascii: "}"))
    }
}
