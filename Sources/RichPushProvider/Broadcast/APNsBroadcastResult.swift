import RichPushCore

/// What APNs answered to a broadcast it accepted (status 200).
public struct APNsBroadcastResult: Sendable, Hashable {
    /// The channel it went to.
    public var channelID: String
    /// The HTTP status (200).
    public var status: Int
    /// `apns-request-id`: the request's id, as APNs echoed it.
    public var requestID: String?
    /// `apns-unique-id`: APNs' id for the message (Apple: give it when asking Apple about a broadcast).
    public var uniqueID: String?
    /// Requests made (retries included).
    public var attempts: Int

    /// Makes a result.
    /// - Parameters:
    ///   - channelID: the channel.
    ///   - status: the status.
    ///   - requestID: the request id.
    ///   - uniqueID: APNs' message id.
    ///   - attempts: requests made.
    public init(channelID: String, status: Int, requestID: String?, uniqueID: String?, attempts: Int) {
        self.channelID = channelID
        self.status = status
        self.requestID = requestID
        self.uniqueID = uniqueID
        self.attempts = attempts
    }

    /// `{"channel", "outcome": "accepted", "status", "apns-request-id", "apns-unique-id", "attempts"}`.
    public var jsonValue: RichPushJSONValue {
        var o: [String: RichPushJSONValue] = [
            "channel": .string(channelID), "outcome": .string("accepted"), "status": .int(status), "attempts": .int(attempts),
        ]
        o["apns-request-id"] = requestID.map(RichPushJSONValue.string) ?? .null
        o["apns-unique-id"] = uniqueID.map(RichPushJSONValue.string) ?? .null
        return .object(o)
    }
}
