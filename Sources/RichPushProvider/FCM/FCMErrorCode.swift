/// The error code FCM HTTP v1 gives with a non-200 answer (`details[].errorCode` of the
/// `FcmError` detail). A struct over a string: a code Google adds later is kept verbatim.
///
/// Source: Google, "FCM error codes" (`firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode`).
public struct FCMErrorCode: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// 400: the request (or its token) is invalid.
    public static let invalidArgument = FCMErrorCode(rawValue: "INVALID_ARGUMENT")
    /// 404: the app instance was unregistered; stop sending to the token.
    public static let unregistered = FCMErrorCode(rawValue: "UNREGISTERED")
    /// 403: the token belongs to another sender (Firebase project).
    public static let senderIDMismatch = FCMErrorCode(rawValue: "SENDER_ID_MISMATCH")
    /// 429: the sending quota is exceeded; retry later.
    public static let quotaExceeded = FCMErrorCode(rawValue: "QUOTA_EXCEEDED")
    /// 503: the server is overloaded; retry later.
    public static let unavailable = FCMErrorCode(rawValue: "UNAVAILABLE")
    /// 500: an internal error; retry later.
    public static let `internal` = FCMErrorCode(rawValue: "INTERNAL")
    /// 401: FCM could not authenticate to APNs (no APNs key or certificate in the project).
    public static let thirdPartyAuthError = FCMErrorCode(rawValue: "THIRD_PARTY_AUTH_ERROR")
    /// No more information.
    public static let unspecifiedError = FCMErrorCode(rawValue: "UNSPECIFIED_ERROR")
}
