import Foundation
import RichPushCore

/// FCM's part of the retry loop for one message: its requests, one access-token renewal after a
/// 401, and what each answer means (`FCMResponseHandling`), the token-state handler told about
/// unregistered and bad tokens.
struct FCMAnswerClassifier: TokenAnswerClassifier {
    let template: (prefix: [UInt8], suffix: [UInt8])
    let sendURL: String
    let projectID: String
    let tokens: FCMAccessTokenProvider
    let tokenStateHandler: (any DeviceTokenStateHandler)?
    let settingNames: FCMSettingNames
    /// The message carries an `apns-collapse-id` (also its `android.collapse_key`): a request whose
    /// answer was lost may be sent again.
    let resendsAfterLostAnswer: Bool

    var provider: PushProvider { .fcm }

    func credential(current: String?, renewed: Bool) async throws(CredentialRefusal) -> String? {
        do {
            return try await tokens.accessToken()
        } catch {
            throw Self.refusal(error)
        }
    }

    func renew(_ stale: String?, alreadyRenewed: Bool, answer: RichPushJSONValue) async throws(CredentialRefusal) -> String? {
        guard !alreadyRenewed else {
            let error = FCMResponseHandling.ErrorBody(answer)
            throw CredentialRefusal(
                message:
                    "FCM refused a fresh access token (401\(error.message.map { ": " + $0 } ?? "")): check that the service account belongs to project \(projectID) and is not disabled"
            )
        }
        if let stale { await tokens.invalidate(stale) }
        // The next request fetches a fresh one.
        return nil
    }

    func request(to token: String, credential: String?) -> TransportRequest {
        Self.request(url: sendURL, body: FCMMessage.body(template, token: token), bearer: credential ?? "")
    }

    /// One `messages:send` request.
    static func request(url: String, body: Data, bearer: String) -> TransportRequest {
        TransportRequest(
            method: "POST", url: url,
            headers: [("authorization", "Bearer " + bearer), ("content-type", "application/json; charset=utf-8")],
            body: body
        )
    }

    /// The message for a token that cannot get an access token.
    /// An access-token failure as a refusal: temporary when it is the token endpoint's, for now
    /// (5xx, 429: `FCMAccessTokenProvider` throws `transport`), not the service account's.
    static func refusal(_ error: any Error) -> CredentialRefusal {
        let failure = error as? RichPushError
        return CredentialRefusal(
            message: failure?.message ?? "cannot get an OAuth2 access token: \(error)", temporary: failure?.code == .transport)
    }

    func read(_ response: TransportResponse, json: RichPushJSONValue, into result: inout FCMSendResult) async -> AnswerVerdict {
        let error = FCMResponseHandling.ErrorBody(json)
        result.errorCode = response.status == 200 ? nil : error.code
        let note = TokenRetryLoop<Self>.unexpectedBodyNote(result, .fcm)
        let token = result.deviceToken
        switch FCMResponseHandling.classify(status: response.status, error: error, project: projectID, names: settingNames) {
        case .accepted:
            result.outcome = .accepted
            result.messageName = json["name"]?.stringValue
            result.message = nil
        case .renewAccessToken:
            return .renewCredential
        case .retry:
            return .retry
        case .tokenInactive:
            let now = Date()
            await tokenStateHandler?.deviceTokenBecameInactive(token, since: now)
            result.outcome = .tokenInactive
            result.inactiveSince = now
            result.message = "FCM says the app instance is no longer registered (UNREGISTERED): stop sending to this token until the app registers again"
        case .tokenBad(let hint):
            await tokenStateHandler?.deviceTokenIsBad(
                token, reason: APNsReason(rawValue: result.errorCode ?? FCMErrorCode.invalidArgument.rawValue), hint: hint)
            result.outcome = .tokenBad
            result.message = hint
        case .stopBatch(let message):
            result.outcome = .configurationError
            result.message = message + note
        case .rejected:
            result.outcome = .rejected
            result.message =
                "FCM rejected the message (\(response.status) \(result.errorCode ?? "no error code")\(error.message.map { ": " + $0 } ?? ""))" + note
        }
        return .finished
    }

    func isStopAnswer(_ answer: TransportResponse) -> Bool {
        let error = FCMResponseHandling.ErrorBody((try? RichPushJSONValue.parse(answer.body)) ?? .null)
        if case .stopBatch = FCMResponseHandling.classify(status: answer.status, error: error, project: projectID, names: settingNames) { return true }
        return false
    }
}
