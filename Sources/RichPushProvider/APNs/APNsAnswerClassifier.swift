import Foundation
@_spi(RichPushInternal) import RichPushCore

/// APNs' part of the retry loop for one notification: its requests, one provider-token renewal
/// after `ExpiredProviderToken`, and what each status and reason means (`APNsResponseHandling`),
/// the token-state handler told about inactive and bad tokens.
struct APNsAnswerClassifier: TokenAnswerClassifier {
    let notification: APNsNotification
    let environment: APNsEnvironment
    let authentication: APNsAuthentication
    let tokenStateHandler: (any DeviceTokenStateHandler)?
    let settingNames: APNsSettingNames

    var provider: PushProvider { .apns }

    var resendsAfterLostAnswer: Bool { resendsSafely }

    /// `notification.resendsSafely`, worked out once per notification.
    let resendsSafely: Bool

    func credential(current: APNsTokenManager.Token?, renewed: Bool) async throws(CredentialRefusal) -> APNsTokenManager.Token? {
        guard let manager = authentication.tokenManager, current == nil || !renewed else { return current }
        do {
            return try await manager.token()
        } catch {
            throw CredentialRefusal(message: "cannot sign the provider token: \(error)")
        }
    }

    func renew(_ stale: APNsTokenManager.Token?, alreadyRenewed: Bool, answer: RichPushJSONValue) async throws(CredentialRefusal) -> APNsTokenManager.Token? {
        guard let manager = authentication.tokenManager, let stale, !alreadyRenewed else {
            throw CredentialRefusal(
                message:
                    "APNs says ExpiredProviderToken again right after a renewal: check this machine's clock (the token's iat must be within the last hour)")
        }
        let fresh: APNsTokenManager.Token?
        do {
            fresh = try await manager.renew(afterExpired: stale.jwt)
        } catch {
            throw CredentialRefusal(message: "cannot sign the provider token: \(error)")
        }
        guard let fresh else {
            throw CredentialRefusal(
                message:
                    "APNs says ExpiredProviderToken, but the token was already renewed less than 20 minutes ago (Apple: renew at most every 20 minutes): check this machine's clock"
            )
        }
        return fresh
    }

    func request(to token: String, credential: APNsTokenManager.Token?) -> TransportRequest {
        TransportRequest(
            method: "POST", url: environment.baseURL + "/3/device/" + token.lowercased(), headers: notification.headers(bearer: credential?.jwt),
            body: notification.payload)
    }

    func read(_ response: TransportResponse, json: RichPushJSONValue, into result: inout APNsResult) async -> AnswerVerdict {
        result.apnsID = response.headers["apns-id"] ?? notification.apnsID?.uuidString.lowercased()
        result.reason = json["reason"]?.stringValue.map { APNsReason(rawValue: $0) }
        result.timestamp = APNsResult.timestamp(json["timestamp"])
        let token = result.deviceToken
        switch APNsResponseHandling.classify(
            status: response.status, reason: result.reason, topic: notification.topic, environment: environment, names: settingNames)
        {
        case .accepted:
            result.outcome = .accepted
            result.reason = nil
            result.message = nil
        case .renewProviderToken:
            return .renewCredential
        case .retry:
            return .retry
        case .tokenInactive:
            if let handler = tokenStateHandler, let registered = await handler.lastRegistration(of: token),
                let stamp = result.timestamp, registered > stamp
            {
                result.outcome = .tokenReRegistered
                result.message =
                    "APNs says the token is inactive since \(Self.iso(stamp)), but the app registered it again at \(Self.iso(registered)): kept"
            } else {
                await tokenStateHandler?.deviceTokenBecameInactive(token, since: result.timestamp)
                result.outcome = .tokenInactive
                result.message =
                    "the token is no longer active\(result.timestamp.map { " since " + Self.iso($0) } ?? ""): stop sending to it until the app registers again"
            }
        case .tokenBad:
            let reason = result.reason ?? .badDeviceToken
            let hint = APNsResponseHandling.badTokenHint(reason, topic: notification.topic, environment: environment, names: settingNames)
            await tokenStateHandler?.deviceTokenIsBad(token, reason: reason, hint: hint)
            result.outcome = .tokenBad
            result.message = hint
        case .stopBatch(let message):
            result.outcome = .configurationError
            result.message = message
        case .rejected:
            result.outcome = .rejected
            result.message =
                "APNs rejected the notification (\(response.status) \(result.reason?.rawValue ?? "no reason"))"
                + TokenRetryLoop<Self>.unexpectedBodyNote(result, .apns)
        }
        return .finished
    }

    /// Whether a first answer stops the batch (a configuration error).
    func isStopAnswer(_ answer: TransportResponse) -> Bool {
        let reason = (try? RichPushJSONValue.parse(answer.body))?["reason"]?.stringValue.map { APNsReason(rawValue: $0) }
        if case .stopBatch = APNsResponseHandling.classify(
            status: answer.status, reason: reason, topic: notification.topic, environment: environment, names: settingNames)
        {
            return true
        }
        return false
    }

    private static func iso(_ date: Date) -> String {
        RFC3339Timestamp.string(milliseconds: Int((date.timeIntervalSince1970 * 1000).rounded(.down)), fractional: false)
    }
}
