import RichPushCore

/// What RichPush does with one FCM HTTP v1 answer (Google, "FCM error codes",
/// `firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode`). Internal: callers see `PushOutcome`.
enum FCMResponseHandling: Equatable {
    case accepted
    /// 401 without `THIRD_PARTY_AUTH_ERROR`: fetch a new access token once and retry.
    case renewAccessToken
    /// 429 `QUOTA_EXCEEDED`, 503 `UNAVAILABLE`, 500 `INTERNAL`, other 5xx: back off (honouring
    /// `Retry-After`) and retry.
    case retry
    /// 404 `UNREGISTERED`: the app instance is gone; stop sending to the token until it registers again.
    case tokenInactive
    /// `INVALID_ARGUMENT` about the token, `SENDER_ID_MISMATCH`: the token is wrong for this project.
    case tokenBad(String)
    /// Fails every request of the batch the same way: stop, with what to fix.
    case stopBatch(String)
    /// Anything else (`UNSPECIFIED_ERROR`, an unknown code): keep the code verbatim, go on.
    case rejected

    /// FCM's error, as read from `{"error": {code, message, status, details}}`.
    struct ErrorBody: Equatable {
        /// `details[].errorCode` of the `FcmError` detail (`UNREGISTERED`, …).
        var fcmCode: String?
        /// `status`, the Google API status (`NOT_FOUND`, `UNAUTHENTICATED`, …).
        var apiStatus: String?
        /// `message`.
        var message: String?
        /// The fields named by a `google.rpc.BadRequest` detail (`message.token`, …).
        var fieldViolations: [String] = []

        init(_ json: RichPushJSONValue) {
            let error = json["error"]
            apiStatus = error?["status"]?.stringValue
            message = error?["message"]?.stringValue
            for detail in error?["details"]?.arrayValue ?? [] {
                if fcmCode == nil, let code = detail["errorCode"]?.stringValue { fcmCode = code }
                for violation in detail["fieldViolations"]?.arrayValue ?? [] {
                    if let field = violation["field"]?.stringValue { fieldViolations.append(field) }
                }
            }
        }

        /// The code to report: FCM's own, else the API status.
        var code: String? { fcmCode ?? apiStatus }

        /// Whether an `INVALID_ARGUMENT` is about the registration token (not the message).
        var isAboutTheToken: Bool {
            fieldViolations.contains("message.token")
                || (message?.lowercased().contains("registration token") ?? false)
        }
    }

    /// Classifies an answer.
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - error: the parsed error body (empty for 200).
    ///   - project: the Firebase project, for messages.
    ///   - names: what the messages call the settings.
    static func classify(status: Int, error: ErrorBody, project: String, names: FCMSettingNames = .descriptive) -> FCMResponseHandling {
        if status == 200 { return .accepted }
        switch error.fcmCode.map(FCMErrorCode.init(rawValue:)) {
        case .unregistered?: return .tokenInactive
        case .senderIDMismatch?:
            return .tokenBad(
                "the token belongs to another Firebase project than \(project) (SENDER_ID_MISMATCH): it was registered by an app with another sender; use that project's service account, or have the app register again"
            )
        case .quotaExceeded?, .unavailable?, .internal?: return .retry
        case .thirdPartyAuthError?:
            return .stopBatch(
                "FCM could not authenticate to APNs for project \(project) (THIRD_PARTY_AUTH_ERROR): upload the APNs auth key (.p8) or certificate in the Firebase console (Project settings → Cloud Messaging → Apple app configuration)"
            )
        case .invalidArgument?:
            if error.isAboutTheToken {
                return .tokenBad(
                    "FCM says the registration token is not valid (INVALID_ARGUMENT\(error.message.map { ": " + $0 } ?? "")): have the app register again and send its current FCM token"
                )
            }
            return .stopBatch(
                "FCM refused the message (INVALID_ARGUMENT\(error.message.map { ": " + $0 } ?? "")); every token would get the same answer: fix the payload or headers (`richpush lint`)"
            )
        case nil:
            break
        default:
            return .rejected
        }
        switch status {
        case 401: return .renewAccessToken
        case 403:
            return .stopBatch(
                "FCM refused the service account for project \(project) (\(error.apiStatus ?? "403")\(error.message.map { ": " + $0 } ?? "")): give it the Firebase Cloud Messaging API Admin role and enable the FCM API for the project"
            )
        case 404:
            return .stopBatch(
                "FCM knows no project \(project) (\(error.apiStatus ?? "404")\(error.message.map { ": " + $0 } ?? "")): check project_id in the service-account file, or \(names.url)"
            )
        case 400:
            if error.isAboutTheToken {
                return .tokenBad("FCM says the registration token is not valid (\(error.message ?? "400")): have the app register again")
            }
            return .stopBatch("FCM refused the request (\(error.code ?? "400")\(error.message.map { ": " + $0 } ?? "")); every token would get the same answer")
        case 429, 500...599: return .retry
        default: return .rejected
        }
    }
}
