/// The `reason` APNs gives with a non-200 status. A struct over a string: a reason Apple adds
/// later is kept verbatim, never dropped.
///
/// Source: Apple, "Handling notification responses from APNs" (status codes 400, 403, 404, 405,
/// 410, 413, 429, 500, 503 and their reasons).
public struct APNsReason: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // 400
    public static let badCollapseId = APNsReason(rawValue: "BadCollapseId")
    public static let badDeviceToken = APNsReason(rawValue: "BadDeviceToken")
    public static let badExpirationDate = APNsReason(rawValue: "BadExpirationDate")
    public static let badMessageId = APNsReason(rawValue: "BadMessageId")
    public static let badPriority = APNsReason(rawValue: "BadPriority")
    public static let badTopic = APNsReason(rawValue: "BadTopic")
    public static let deviceTokenNotForTopic = APNsReason(rawValue: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNsReason(rawValue: "DuplicateHeaders")
    public static let idleTimeout = APNsReason(rawValue: "IdleTimeout")
    public static let invalidPushType = APNsReason(rawValue: "InvalidPushType")
    public static let missingDeviceToken = APNsReason(rawValue: "MissingDeviceToken")
    public static let missingTopic = APNsReason(rawValue: "MissingTopic")
    public static let payloadEmpty = APNsReason(rawValue: "PayloadEmpty")
    public static let topicDisallowed = APNsReason(rawValue: "TopicDisallowed")
    // 403
    public static let badCertificate = APNsReason(rawValue: "BadCertificate")
    public static let badCertificateEnvironment = APNsReason(rawValue: "BadCertificateEnvironment")
    public static let expiredProviderToken = APNsReason(rawValue: "ExpiredProviderToken")
    public static let forbidden = APNsReason(rawValue: "Forbidden")
    public static let invalidProviderToken = APNsReason(rawValue: "InvalidProviderToken")
    public static let missingProviderToken = APNsReason(rawValue: "MissingProviderToken")
    public static let unrelatedKeyIdInToken = APNsReason(rawValue: "UnrelatedKeyIdInToken")
    public static let badEnvironmentKeyIdInToken = APNsReason(rawValue: "BadEnvironmentKeyIdInToken")
    // 404, 405
    public static let badPath = APNsReason(rawValue: "BadPath")
    public static let methodNotAllowed = APNsReason(rawValue: "MethodNotAllowed")
    // 410
    public static let expiredToken = APNsReason(rawValue: "ExpiredToken")
    public static let unregistered = APNsReason(rawValue: "Unregistered")
    // 413
    public static let payloadTooLarge = APNsReason(rawValue: "PayloadTooLarge")
    // 429
    public static let tooManyProviderTokenUpdates = APNsReason(rawValue: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNsReason(rawValue: "TooManyRequests")
    // 500, 503
    public static let internalServerError = APNsReason(rawValue: "InternalServerError")
    public static let serviceUnavailable = APNsReason(rawValue: "ServiceUnavailable")
    public static let shutdown = APNsReason(rawValue: "Shutdown")

    /// Every reason Apple documents, with its status code.
    public static let documented: [(status: Int, reason: APNsReason)] = [
        (400, .badCollapseId), (400, .badDeviceToken), (400, .badExpirationDate), (400, .badMessageId),
        (400, .badPriority), (400, .badTopic), (400, .deviceTokenNotForTopic), (400, .duplicateHeaders),
        (400, .idleTimeout), (400, .invalidPushType), (400, .missingDeviceToken), (400, .missingTopic),
        (400, .payloadEmpty), (400, .topicDisallowed),
        (403, .badCertificate), (403, .badCertificateEnvironment), (403, .expiredProviderToken), (403, .forbidden),
        (403, .invalidProviderToken), (403, .missingProviderToken), (403, .unrelatedKeyIdInToken),
        (403, .badEnvironmentKeyIdInToken),
        (404, .badPath), (405, .methodNotAllowed), (410, .expiredToken), (410, .unregistered), (413, .payloadTooLarge),
        (429, .tooManyProviderTokenUpdates), (429, .tooManyRequests),
        (500, .internalServerError), (503, .serviceUnavailable), (503, .shutdown),
    ]
}
