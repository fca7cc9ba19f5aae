/// What RichPush does with one APNs status and reason (Apple, "Handling notification responses
/// from APNs"). Internal: callers see `APNsOutcome`.
enum APNsResponseHandling: Equatable {
    case accepted
    /// 403 `ExpiredProviderToken`: renew the JWT once and retry.
    case renewProviderToken
    /// 429 `TooManyRequests`, 5xx, 400 `IdleTimeout`: retry with backoff.
    case retry
    /// 410: stop sending to the token unless it registered again after `timestamp`.
    case tokenInactive
    /// `BadDeviceToken` / `DeviceTokenNotForTopic`.
    case tokenBad
    /// Fails every request of the batch the same way: stop, with what to fix.
    case stopBatch(String)
    /// Anything else (an unknown reason): keep the reason verbatim, go on with the next token.
    case rejected

    /// Classifies a response.
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - reason: the `reason`, if any.
    ///   - topic: the topic sent (for messages).
    ///   - environment: the environment (for messages).
    ///   - names: what the messages call the settings (described in words by default).
    static func classify(
        status: Int, reason: APNsReason?, topic: String, environment: APNsEnvironment, names: APNsSettingNames = .descriptive
    ) -> APNsResponseHandling {
        if status == 200 { return .accepted }
        let other = environment == .production ? "sandbox (add \(names.sandbox))" : "production (drop \(names.sandbox))"
        switch reason {
        case .expiredProviderToken?: return .renewProviderToken
        case .tooManyRequests?, .internalServerError?, .serviceUnavailable?, .shutdown?, .idleTimeout?: return .retry
        case .unregistered?, .expiredToken?: return .tokenInactive
        case .badDeviceToken?, .deviceTokenNotForTopic?: return .tokenBad
        case .invalidProviderToken?:
            return .stopBatch(
                "APNs could not verify the provider token: check that \(names.keyID) is the key's id (AuthKey_<KEYID>.p8), that \(names.teamID) is the team that owns the key, that the key is not revoked, and that this machine's clock is right"
            )
        case .missingProviderToken?:
            return .stopBatch(
                "APNs got no provider token and no client certificate: pass \(names.key), \(names.keyID) and \(names.teamID) (or a client certificate)")
        case .unrelatedKeyIdInToken?:
            return .stopBatch("the key id in the token does not belong to the team id: check \(names.keyID) and \(names.teamID)")
        case .badEnvironmentKeyIdInToken?:
            return .stopBatch("the key is restricted to the other environment than \(environment): send to \(other), or use a key for both")
        case .topicDisallowed?:
            return .stopBatch(
                "APNs does not allow pushing to topic \(topic) with this key or certificate: check that \(names.topic) is the app's bundle id and that the key's team owns the app"
            )
        case .missingTopic?:
            return .stopBatch("APNs needs a topic: pass \(names.topic) with the app's bundle id")
        case .badTopic?:
            return .stopBatch("the topic \(topic) is invalid: pass the app's bundle id (plus .voip / .complication for those push types)")
        case .badCertificate?:
            return .stopBatch("APNs refused the client certificate: export the APNs certificate with its private key again")
        case .badCertificateEnvironment?:
            return .stopBatch("the client certificate is for the other environment than \(environment): send to \(other), or use the matching certificate")
        case .forbidden?:
            return .stopBatch("APNs says Forbidden: the key or certificate may not send this; check it in the developer account")
        case .tooManyProviderTokenUpdates?:
            return .stopBatch(
                "the provider token was renewed too often (Apple: at most once every 20 minutes): share one token across processes and do not sign per request")
        case .badPath?, .methodNotAllowed?:
            return .stopBatch(
                "the request URL or method is wrong: \(names.url) must be only the base (e.g. https://api.push.apple.com), requests go to POST /3/device/<token>"
            )
        case .badCollapseId?:
            return .stopBatch("apns-collapse-id is invalid (Apple: at most 64 bytes)")
        case .badExpirationDate?:
            return .stopBatch("apns-expiration is invalid: give a UNIX time in seconds, or 0")
        case .badMessageId?:
            return .stopBatch("apns-id is invalid: it must be a UUID (8-4-4-4-12 hex)")
        case .badPriority?:
            return .stopBatch("apns-priority is invalid: use 10, 5 or 1 (background pushes need 5)")
        case .duplicateHeaders?:
            return .stopBatch("a header was sent twice")
        case .invalidPushType?:
            return .stopBatch("apns-push-type is invalid for this payload or topic (alert, background, voip, …)")
        case .payloadEmpty?:
            return .stopBatch("the payload is empty: send at least {\"aps\":{}}")
        case .payloadTooLarge?:
            return .stopBatch("APNs says the payload is too large (Apple: 4096 bytes, 5120 for VoIP): shorten it")
        case .missingDeviceToken?:
            return .stopBatch("the request path has no device token")
        default:
            if status == 429 || (500...599).contains(status) { return .retry }
            if status == 403 {
                return .stopBatch("APNs refused the credentials (\(reason?.rawValue ?? "no reason")): check the key, key id, team id and topic")
            }
            if status == 410 { return .tokenInactive }
            return .rejected
        }
    }

    /// The hint for a bad token.
    static func badTokenHint(_ reason: APNsReason, topic: String, environment: APNsEnvironment, names: APNsSettingNames = .descriptive) -> String {
        let other = environment == .production ? "sandbox (add \(names.sandbox))" : "production (drop \(names.sandbox))"
        if reason == .deviceTokenNotForTopic {
            return "the token belongs to another app than \(topic), or to the \(other) environment"
        }
        if environment == .production {
            return
                "the token is not valid for production APNs: a token from a development build (run from Xcode) works only with sandbox: try \(names.sandbox); otherwise the app must register again"
        }
        if environment == .sandbox {
            return
                "the token is not valid for sandbox APNs: a TestFlight or App Store build's token works only with production: drop \(names.sandbox); otherwise the app must register again"
        }
        return "the token is not valid for \(environment): check sandbox vs production, or have the app register again"
    }
}
