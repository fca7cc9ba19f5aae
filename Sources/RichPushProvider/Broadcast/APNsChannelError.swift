import RichPushCore

/// Why a channel request or a broadcast did not succeed: a stable code, APNs' status and reason
/// when it answered, the request id, and what to do.
///
/// Every reason Apple lists for these requests maps to one code (`APNsReason.documentedForBroadcast`;
/// `APNsChannelError.classify`).
public struct APNsChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable code.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// 400 `FeatureNotEnabled`: the app's Broadcast Capability is off.
        public static let featureNotEnabled = Code(rawValue: "feature_not_enabled")
        /// 400 `ChannelNotRegistered`: no such channel (deleted, never made, or the other environment's).
        public static let channelNotRegistered = Code(rawValue: "channel_not_registered")
        /// 400 `BadChannelId`: not a channel id APNs made.
        public static let badChannelID = Code(rawValue: "bad_channel_id")
        /// 400 `CannotCreateChannelConfig`: 10,000 channels already (Apple's limit per app and environment).
        public static let channelLimitReached = Code(rawValue: "channel_limit_reached")
        /// 400 `BadExpirationDate`: a non-zero expiration to a No Message Stored channel, or not a UNIX time.
        public static let badExpirationDate = Code(rawValue: "bad_expiration_date")
        /// 413 `PayloadTooLarge`: over 5,120 bytes.
        public static let payloadTooLarge = Code(rawValue: "payload_too_large")
        /// The credentials, the topic or the host are wrong (403s, `TopicDisallowed`,
        /// `TooManyProviderTokenUpdates`, `BadPath`): every request fails the same way.
        public static let providerConfiguration = Code(rawValue: "provider_configuration")
        /// A request APNs could not read (`MissingChannelId`, `BadRequestParams`, `BadRequestPayload`,
        /// `PayloadEmpty`, `BadMessageId`, `MissingPushType`, `InvalidPushType`, `BadPriority`, `MethodNotAllowed`).
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// 429 `TooManyRequests`, still after the retries.
        public static let throttled = Code(rawValue: "throttled")
        /// 500 `InternalServerError` (not retried when a second copy could alert twice).
        public static let serverError = Code(rawValue: "server_error")
        /// 503 `ServiceUnavailable` / `Shutdown`, still after the retries.
        public static let unavailable = Code(rawValue: "unavailable")
        /// The request was written and no answer came: APNs may have done it.
        public static let answerUnknown = Code(rawValue: "answer_unknown")
        /// The request never reached APNs (no connection, refused again and again): nothing happened.
        public static let notSent = Code(rawValue: "not_sent")
        /// APNs answered success without what the answer must hold (a 201 without `apns-channel-id`,
        /// a list without `channels`), or an answer that is not APNs' JSON.
        public static let unexpectedAnswer = Code(rawValue: "unexpected_answer")
        /// RichPush refused to send it: `LiveActivityLinter` found errors (`findings` name the fields).
        public static let payloadRejected = Code(rawValue: "payload_rejected")
        /// A reason Apple does not list (kept verbatim in `reason`).
        public static let rejected = Code(rawValue: "rejected")
    }

    /// The stable code.
    public var code: Code
    /// What was being done.
    public var operation: APNsChannelOperation
    /// The HTTP status, when APNs answered.
    public var status: Int?
    /// APNs' `reason`, verbatim, when it gave one.
    public var reason: String?
    /// The channel, when the request named one.
    public var channelID: String?
    /// `apns-request-id` (APNs' echo, else the one sent): give it when asking Apple.
    public var requestID: String?
    /// Requests made.
    public var attempts: Int
    /// What happened and what to do.
    public var message: String
    /// With `payload_rejected`: the lint errors, each naming its field.
    public var findings: [RichPushLintFinding] = []

    /// Makes an error.
    /// - Parameters:
    ///   - code: the code.
    ///   - operation: what was being done.
    ///   - status: the status, if any.
    ///   - reason: the reason, if any.
    ///   - channelID: the channel, if any.
    ///   - requestID: the request id, if any.
    ///   - attempts: requests made.
    ///   - message: what to do.
    public init(
        _ code: Code, operation: APNsChannelOperation, status: Int? = nil, reason: String? = nil, channelID: String? = nil, requestID: String? = nil,
        attempts: Int = 0, message: String
    ) {
        self.code = code
        self.operation = operation
        self.status = status
        self.reason = reason
        self.channelID = channelID
        self.requestID = requestID
        self.attempts = attempts
        self.message = message
    }

    public var description: String {
        "\(operation) failed (\(code)\(status.map { ", \($0)" } ?? "")\(reason.map { " \($0)" } ?? "")): \(message)"
    }

    /// `{"outcome", "operation", "status", "reason", "channel", "apns-request-id", "attempts", "message"}`.
    public var jsonValue: RichPushJSONValue {
        var o: [String: RichPushJSONValue] = [
            "outcome": .string(code.rawValue), "operation": .string(operation.rawValue), "attempts": .int(attempts), "message": .string(message),
        ]
        o["status"] = status.map(RichPushJSONValue.int) ?? .null
        o["reason"] = reason.map(RichPushJSONValue.string) ?? .null
        if let channelID { o["channel"] = .string(channelID) }
        o["apns-request-id"] = requestID.map(RichPushJSONValue.string) ?? .null
        if !findings.isEmpty {
            o["findings"] = .array(
                findings.map {
                    .object(["field": $0.keyPath.map(RichPushJSONValue.string) ?? .null, "code": .string($0.code.rawValue), "message": .string($0.message)])
                })
        }
        return .object(o)
    }

    /// What a failed answer means, with what to do: every reason Apple lists, and any other status.
    ///
    /// - Parameters:
    ///   - status: the HTTP status (not the operation's success status).
    ///   - reason: APNs' `reason`, if any.
    ///   - operation: what was being done.
    ///   - bundleID: the app's bundle id (for messages).
    ///   - environment: where the request went (for messages).
    /// - Returns: the code and the message.
    public static func classify(
        status: Int, reason: APNsReason?, operation: APNsChannelOperation, bundleID: String, environment: APNsBroadcastEnvironment
    ) -> (code: Code, message: String) {
        let other = environment == .production ? "sandbox" : environment == .sandbox ? "production" : "other"
        switch reason {
        case .featureNotEnabled?:
            return (
                .featureNotEnabled,
                "broadcast is not enabled for \(bundleID): in the developer account, Certificates, IDs & Profiles → Identifiers → \(bundleID) → Push Notifications, enable Broadcast Capability (it cannot be enabled in Xcode)"
            )
        case .channelNotRegistered?:
            return (
                .channelNotRegistered,
                "APNs has no such channel in \(environment): it was deleted, never created, or created in the \(other) environment (channels are not shared across environments); create a new one"
            )
        case .badChannelId?:
            return (.badChannelID, "apns-channel-id is not a channel id APNs made (base64 text, as the create answer's apns-channel-id, not longer)")
        case .missingChannelId?:
            return (.invalidRequest, "the request had no apns-channel-id header (\(operation) needs the channel id)")
        case .cannotCreateChannelConfig?:
            return (
                .channelLimitReached,
                "\(bundleID) already has the most channels APNs keeps (Apple: 10,000 per app in \(environment)): delete the channels of events that are over (richpush channels delete)"
            )
        case .badExpirationDate?:
            return (
                .badExpirationDate,
                "apns-expiration was refused: on a channel created with message-storage-policy 0 (No Message Stored) only 0 is allowed (Apple); otherwise give a UNIX time in seconds"
            )
        case .payloadTooLarge?:
            return (.payloadTooLarge, "the payload is over 5,120 bytes, Apple's broadcast limit: shorten the content state or the alert")
        case .badRequestParams?:
            return (.invalidRequest, "the JSON body had an attribute APNs does not know (a channel is created with message-storage-policy and push-type only)")
        case .badRequestPayload?:
            return (.invalidRequest, "APNs could not parse the JSON body: send strict JSON (richpush lint checks it)")
        case .payloadEmpty?:
            return (
                .invalidRequest,
                "the request had no body: a create sends {\"message-storage-policy\": 0 or 1, \"push-type\": \"LiveActivity\"}, a broadcast its payload"
            )
        case .badMessageId?:
            return (.invalidRequest, "apns-request-id (or apns-id) is not a canonical UUID (8-4-4-4-12 lowercase hex)")
        case .missingPushType?:
            return (.invalidRequest, "the request had no push type (apns-push-type: liveactivity; push-type LiveActivity when creating a channel)")
        case .invalidPushType?:
            return (
                .invalidRequest,
                "the push type was refused: broadcasts and channels take only Live Activities (apns-push-type liveactivity, push-type LiveActivity)"
            )
        case .badPriority?:
            return (.invalidRequest, "apns-priority was refused: a broadcast takes 10, 5 or 1")
        case .methodNotAllowed?:
            return (.invalidRequest, "APNs does not allow this method here (channels: POST to create, GET to read, DELETE to delete; broadcasts: POST)")
        case .topicDisallowed?:
            return (
                .providerConfiguration,
                "APNs refused the topic \(bundleID): give the app's bundle id without a push-type suffix (not .push-type.liveactivity) and one the key's team owns"
            )
        case .topicMismatch?:
            return (
                .providerConfiguration,
                "the key's team (or the certificate) does not include \(bundleID), the bundle id in the path: use the app's bundle id and a key of the team that owns it"
            )
        case .badCertificate?:
            return (.providerConfiguration, "APNs refused the client certificate: export the APNs certificate with its private key again")
        case .badCertificateEnvironment?:
            return (.providerConfiguration, "the client certificate is for the \(other) environment: use the matching certificate or environment")
        case .missingProviderToken?:
            return (.providerConfiguration, "APNs got no provider token and no client certificate: give the .p8 key, its key id and the team id")
        case .expiredProviderToken?:
            return (
                .providerConfiguration,
                "APNs says the provider token is expired even after a renewal: check this machine's clock (the token's iat must be within the last hour)"
            )
        case .invalidProviderToken?:
            return (
                .providerConfiguration,
                "APNs could not verify the provider token: check the key id (AuthKey_<KEYID>.p8), the team id that owns the key, that the key is not revoked, and this machine's clock"
            )
        case .tooManyProviderTokenUpdates?:
            return (.providerConfiguration, "the provider token was renewed too often (Apple: at most once every 20 minutes): share one token across processes")
        case .badPath?:
            return (
                .providerConfiguration,
                "APNs does not know this path or host: channel requests go to the management host (\(environment.managementURL)), broadcasts to \(environment.broadcastURL) (Apple: the management host and port differ from the broadcast host)"
            )
        case .tooManyRequests?:
            return (.throttled, "APNs throttled the requests (429 TooManyRequests) after every retry: slow down, try again later")
        case .internalServerError?:
            return (.serverError, "APNs had an internal error (500)")
        case .serviceUnavailable?, .serviceUnavailableSpaced?, .shutdown?:
            return (.unavailable, "APNs is unavailable or shutting down (503 \(reason?.rawValue ?? "")) after every retry: try again later")
        default:
            switch status {
            case 429: return (.throttled, "APNs throttled the requests (429) after every retry: try again later")
            case 500: return (.serverError, "APNs had an internal error (500)")
            case 503: return (.unavailable, "APNs is unavailable (503) after every retry: try again later")
            case 403:
                return (.providerConfiguration, "APNs refused the credentials (403 \(reason?.rawValue ?? "")): check the key, key id, team id and bundle id")
            case 404: return (.providerConfiguration, "APNs answered 404 (no such path): check the management and broadcast hosts")
            case 413: return (.payloadTooLarge, "APNs answered 413: the payload is too large (Apple: 5,120 bytes on a channel)")
            default:
                return (.rejected, "APNs answered \(status) \(reason?.rawValue ?? "(no reason)"), which Apple does not list for \(operation)")
            }
        }
    }
}
