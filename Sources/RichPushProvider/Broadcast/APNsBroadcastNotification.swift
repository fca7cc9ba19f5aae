import Foundation

/// One broadcast push notification: the payload and the headers of
/// `POST /4/broadcasts/apps/<bundle id>` (Apple, "Sending broadcast push notification requests to APNs").
public struct APNsBroadcastNotification: Sendable {
    /// The payload JSON bytes, sent as is (at most 5,120 bytes, Apple).
    public var payload: Data
    /// `apns-channel-id`: the base64 channel id.
    public var channelID: String
    /// `apns-priority` (required on a broadcast): 10 now, 5 power-considerate, 1 lowest.
    public var priority: APNsPriority
    /// `apns-expiration` (required): seconds since 1970 until when APNs keeps the message for an
    /// offline device; 0 (the default) delivers once and stores nothing, the only value a
    /// No Message Stored channel takes.
    public var expiration: Int = 0
    /// `apns-request-id`: a UUID APNs echoes back; `nil` makes one per notification.
    public var requestID: UUID?

    /// Describes a broadcast.
    /// - Parameters:
    ///   - payload: the payload (`LiveActivityPayload.jsonData()`).
    ///   - channelID: the channel id.
    ///   - priority: 10, 5 or 1.
    public init(payload: Data, channelID: String, priority: APNsPriority) {
        self.payload = payload
        self.channelID = channelID
        self.priority = priority
    }

    /// `apns-expiration` from a date (whole seconds since 1970).
    /// - Parameter date: when to stop trying (at most 8 hours ahead is kept, Apple).
    /// - Returns: the seconds.
    public static func expiration(_ date: Date) -> Int {
        LiveActivityPayload.unixSeconds(date)
    }

    /// The request headers (without authorization).
    func headers(requestID: String) -> [(name: String, value: String)] {
        [
            ("apns-channel-id", channelID),
            ("apns-push-type", APNsPushType.liveactivity.rawValue),
            ("apns-priority", String(priority.rawValue)),
            ("apns-expiration", String(expiration)),
            ("apns-request-id", requestID),
            ("content-type", "application/json"),
        ]
    }
}
