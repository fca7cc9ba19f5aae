extension APNsReason {
    // Channel management and broadcast (Apple, "Handling error responses from Apple Push
    // Notification service"); the others in that table are the device reasons' names.

    /// 400: broadcast is not enabled for the topic (the Broadcast Capability in the developer account).
    public static let featureNotEnabled = APNsReason(rawValue: "FeatureNotEnabled")
    /// 400: no `apns-channel-id` header.
    public static let missingChannelId = APNsReason(rawValue: "MissingChannelId")
    /// 400: `apns-channel-id` is not properly encoded, or too long.
    public static let badChannelId = APNsReason(rawValue: "BadChannelId")
    /// 400: the channel in `apns-channel-id` does not exist.
    public static let channelNotRegistered = APNsReason(rawValue: "ChannelNotRegistered")
    /// 400: the JSON request payload contained an unrecognizable attribute.
    public static let badRequestParams = APNsReason(rawValue: "BadRequestParams")
    /// 400: the JSON request payload is unparseable.
    public static let badRequestPayload = APNsReason(rawValue: "BadRequestPayload")
    /// 400: the `apns-push-type` header is missing.
    public static let missingPushType = APNsReason(rawValue: "MissingPushType")
    /// 400: the app has the maximum number of channels (10,000 per environment).
    public static let cannotCreateChannelConfig = APNsReason(rawValue: "CannotCreateChannelConfig")
    /// 403: the bundle ids of the token or certificate do not include the path's.
    public static let topicMismatch = APNsReason(rawValue: "TopicMismatch")
    /// 503 as Apple's broadcast table writes it (with a space); the same as `serviceUnavailable`.
    public static let serviceUnavailableSpaced = APNsReason(rawValue: "Service Unavailable")

    /// Every reason Apple lists for channel management and broadcast requests, with its status,
    /// in the order of Apple's table ("Handling error responses from Apple Push Notification
    /// service"; its 503 "Service Unavailable" is listed as written there and as
    /// `ServiceUnavailable`, the device table's spelling).
    public static let documentedForBroadcast: [(status: Int, reason: APNsReason)] = [
        (400, .featureNotEnabled), (400, .missingChannelId), (400, .badChannelId), (400, .channelNotRegistered),
        (400, .badRequestParams), (400, .badRequestPayload), (400, .payloadEmpty), (400, .badMessageId), (400, .missingPushType),
        (400, .invalidPushType), (400, .cannotCreateChannelConfig), (400, .badExpirationDate), (400, .topicDisallowed),
        (400, .badPriority),
        (403, .badCertificate), (403, .badCertificateEnvironment), (403, .topicMismatch), (403, .missingProviderToken),
        (403, .expiredProviderToken), (403, .invalidProviderToken),
        (404, .badPath), (405, .methodNotAllowed), (413, .payloadTooLarge),
        (429, .tooManyRequests), (429, .tooManyProviderTokenUpdates),
        (500, .internalServerError), (503, .serviceUnavailableSpaced), (503, .serviceUnavailable), (503, .shutdown),
    ]
}
