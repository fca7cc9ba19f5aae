import Foundation
import RichPushCore

/// The result for one registration token sent through FCM: what FCM said and what RichPush did.
public struct FCMSendResult: PushTokenResult, DeliveredTokenResult {
    /// The FCM registration token.
    public var deviceToken: String
    /// What became of the message (the same outcomes as APNs).
    public var outcome: PushOutcome
    /// The last HTTP status, `nil` when no response arrived.
    public var status: Int?
    /// FCM's error code verbatim (`UNREGISTERED`, `INVALID_ARGUMENT`, `QUOTA_EXCEEDED`, …), or the
    /// Google API status (`UNAUTHENTICATED`, `PERMISSION_DENIED`) when FCM gave no code; `nil` for 200.
    public var errorCode: String?
    /// The message name FCM returned, `projects/<id>/messages/<n>`.
    public var messageName: String?
    /// Requests made for this token (retries and access-token renewal included).
    public var attempts: Int
    /// What to do, for errors.
    public var message: String?
    /// For `UNREGISTERED`: when FCM said so (FCM gives no earlier time).
    public var inactiveSince: Date?
    /// The start of a body that was not FCM's JSON (a proxy's error page), shown once per batch.
    public var unexpectedBody: String?

    /// Makes a result.
    public init(deviceToken: String, outcome: PushOutcome, status: Int? = nil, errorCode: String? = nil, attempts: Int, message: String? = nil) {
        self.deviceToken = deviceToken
        self.outcome = outcome
        self.status = status
        self.errorCode = errorCode
        self.attempts = attempts
        self.message = message
    }

    /// Makes a result without an answer read yet.
    ///
    /// - Parameters:
    ///   - deviceToken: the registration token.
    ///   - outcome: the outcome so far.
    ///   - attempts: requests made.
    ///   - message: what to do, if anything.
    public init(deviceToken: String, outcome: PushOutcome, attempts: Int, message: String?) {
        self.init(deviceToken: deviceToken, outcome: outcome, status: nil, errorCode: nil, attempts: attempts, message: message)
    }

    /// `errorCode`.
    public var reasonCode: String? { errorCode }
    /// `messageName`.
    public var providerMessageID: String? { messageName }

    /// The result as one JSON object: token, message_id, status, reason, outcome, attempts, message.
    public var jsonValue: RichPushJSONValue {
        var o: [String: RichPushJSONValue] = [
            "token": .string(deviceToken),
            "outcome": .string(outcome.rawValue),
            "attempts": .int(attempts),
        ]
        o["message_id"] = messageName.map(RichPushJSONValue.string) ?? .null
        o["status"] = status.map(RichPushJSONValue.int) ?? .null
        o["reason"] = errorCode.map(RichPushJSONValue.string) ?? .null
        if let message { o["message"] = .string(message) }
        return .object(o)
    }

    /// Appends `jsonValue` as compact JSON, keys in sorted order (the same bytes as
    /// `jsonValue.write(into:)`), field by field.
    /// - Parameter out: the buffer.
    public func writeJSON(into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        RichPushJSONValue.writeField("attempts", attempts, into: &out)
        if let message {
            out.append(UInt8(ascii: ","))
            RichPushJSONValue.writeField("message", message, into: &out)
        }
        out.append(UInt8(ascii: ","))
        RichPushJSONValue.writeField("message_id", messageName, into: &out)
        out.append(UInt8(ascii: ","))
        RichPushJSONValue.writeField("outcome", outcome.rawValue, into: &out)
        out.append(UInt8(ascii: ","))
        RichPushJSONValue.writeField("reason", errorCode, into: &out)
        out.append(UInt8(ascii: ","))
        RichPushJSONValue.writeField("status", status, into: &out)
        out.append(UInt8(ascii: ","))
        RichPushJSONValue.writeField("token", deviceToken, into: &out)
        out.append(UInt8(ascii: "}"))
    }
}
