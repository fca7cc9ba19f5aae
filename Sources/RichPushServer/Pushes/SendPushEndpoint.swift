import Foundation

/// `POST /v1/pushes` (admin, `application/json`): lint, send through APNs or FCM to the given
/// tokens and to the devices of the given `user_ids`, and record the send (`PushSender`), after
/// the send-time media check (`PushMediaCheck`); `200` with per-token results, `400` naming the
/// field or with the lint findings, `422 media_refused` for media the extension would not attach, `413` over 10,000
/// tokens or 1 MB, `502` when a provider refused the server's settings, `503` without settings
/// for the provider needed.
struct SendPushEndpoint: Endpoint {
    let sender: PushSender?
    /// The APNs settings `richpush serve` was not given, for the `503`.
    let apnsMissing: [String]
    /// What the `503` calls the settings.
    let names: PushSettingNames
    /// Replays and 409s for requests with an `Idempotency-Key`.
    let idempotency: IdempotentSend
    /// The send-time media check (`media`, `on_media_error`).
    var mediaCheck: PushMediaCheck?

    var access: EndpointAccess { .admin }
    var contentTypes: [String]? { ["application/json"] }
    var maximumBody: Int { PushSendRequest.maximumBodyBytes }
    var tooLarge: HTTPResponseError {
        HTTPResponseError(
            status: 413, code: "too_large",
            message:
                "a push request body is at most \(PushSendRequest.maximumBodyBytes) bytes (and \(PushSendRequest.maximumTokens) tokens): split the tokens into several requests with the same push_id"
        )
    }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        guard let sender else {
            throw HTTPResponseError(
                status: 503, code: "apns_not_configured",
                message: "POST /v1/pushes needs APNs or FCM settings; start richpush serve with: " + apnsMissing.joined(separator: ", ")
                    + " (optional: \(names.apnsOptional)), or \(names.fcmServiceAccount) FILE",
                headers: [("Cache-Control", "no-store")])
        }
        if request.bodyTooLarge { throw tooLarge }
        let key = try IdempotencyKey(request)
        let push: PushSendRequest
        do {
            push = try PushSendRequest(body: request.body, defaultTopic: sender.settings?.topic)
        } catch let error as HTTPResponseError {
            throw error
        } catch {
            throw HTTPResponseError(code: "invalid_request", message: String(describing: error))
        }
        let mediaMode = try mediaCheck?.mode(for: push) ?? .off
        let mediaCheck = self.mediaCheck
        let send: @Sendable () async -> ServerResponse = {
            var checked = push
            if let mediaCheck {
                do throws(HTTPResponseError) {
                    checked = try await mediaCheck.run(push, mode: mediaMode)
                } catch {
                    return error.response
                }
            }
            return await withCheckedContinuation { continuation in
                sender.send(checked) { continuation.resume(returning: $0) }
            }
        }
        return try await idempotency.respond(key: key, body: request.body, send: send)
    }
}
