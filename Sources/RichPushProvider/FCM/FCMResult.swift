import RichPushCore

/// What FCM said about one message.
public struct FCMResult: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The message name on success, `projects/<id>/messages/<n>`.
    public var name: String?
    /// FCM's error code on failure (`UNREGISTERED`, `INVALID_ARGUMENT`, `QUOTA_EXCEEDED`,
    /// `UNAVAILABLE`, `SENDER_ID_MISMATCH`, `THIRD_PARTY_AUTH_ERROR`, …), kept verbatim.
    public var errorCode: String?
    /// FCM's error message.
    public var message: String?

    /// Whether FCM accepted the message.
    public var isAccepted: Bool { status == 200 && name != nil }
}
