import Foundation
import RichPushCore
import RichPushProvider

/// `POST /v1/campaigns` (admin, `application/json`): checks the campaign, runs the send-time media
/// check on its media (each variant's) exactly as `POST /v1/pushes` does (`PushMediaCheck`:
/// probe, optimise onto the media edge, `media`/`on_media_error`, `422 media_refused` with the
/// reason), snapshots its audience in the store and answers `202 {campaign_id, push_id, state,
/// targets, media, …}` once the campaign and every target are committed; the instances' workers
/// send it (`CampaignWorkers`) with the checked payloads, so the media is checked once per
/// campaign, before its first chunk. With an `Idempotency-Key`, the same key and body create one
/// campaign (replayed answer), across instances; another body is `409`.
struct CreateCampaignEndpoint: CampaignEndpoint {
    let context: ServerContext
    let sender: PushSender?
    /// Replays and 409s for requests with an `Idempotency-Key`.
    let idempotency: IdempotentSend
    let settings: CampaignSettings
    /// The send-time media check, as `POST /v1/pushes` runs it.
    var mediaCheck: PushMediaCheck?
    /// The snapshot (an `INSERT … SELECT` over the audience) is a long write: the background
    /// lane, off the request writes (device registrations wait for nothing).
    var lane: StoreLanes.Lane { .background }

    var contentTypes: [String]? { ["application/json"] }
    var maximumBody: Int { CampaignRequest.maximumBodyBytes }
    var tooLarge: HTTPResponseError {
        HTTPResponseError(
            status: 413, code: "too_large",
            message:
                "a campaign request body is at most \(CampaignRequest.maximumBodyBytes) bytes (and \(CampaignRequest.maximumTokens) listed tokens): register the devices (POST /v1/devices) and send to {\"all\": true}, user_ids or tags instead of listing tokens"
        )
    }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        guard let sender else {
            throw HTTPResponseError(
                status: 503, code: "apns_not_configured",
                message: "POST /v1/campaigns needs APNs or FCM settings; start richpush serve with: "
                    + context.configuration.apnsMissing.joined(separator: ", ") + ", or \(context.configuration.pushSettingNames.fcmServiceAccount) FILE",
                headers: [("Cache-Control", "no-store")])
        }
        let campaigns = try campaignStore()
        if request.bodyTooLarge { throw tooLarge }
        let key = try IdempotencyKey(request)
        let nowMs = ServerContext.nowMs
        let parsed = try CampaignRequest(body: request.body, defaultTopic: sender.settings?.topic, nowMs: nowMs)
        // Tokens go through the named provider or the server's default; it must be configured.
        var provider = parsed.provider
        if case .tokens = parsed.audience { provider = provider ?? sender.defaultProvider }
        if let provider, sender.client(for: provider) == nil {
            throw HTTPResponseError(
                status: 503, code: "\(provider.rawValue)_not_configured",
                message:
                    "this campaign goes through \(provider.displayName), and richpush serve has no \(provider.displayName) settings; start it with them or name the other provider"
            )
        }
        let id = UUID().uuidString.lowercased()
        let content = parsed.content
        let notification = content.notification
        let perMinute = parsed.perMinute
        // A throttled campaign's chunk takes about 5 s at its rate, so leases stay short and
        // several instances share the work.
        let chunkSize = perMinute.map { min(settings.chunkSize, max(1, $0 / 12)) } ?? settings.chunkSize
        var draft = CampaignDraft(
            id: id, pushID: content.pushID, title: content.title, payload: String(decoding: notification.payload, as: UTF8.self),
            topic: notification.topic, pushType: notification.pushType.rawValue, priority: notification.priority?.rawValue,
            expiration: notification.expiration.map { Int($0.timeIntervalSince1970) }, collapseID: notification.collapseID ?? "campaign-\(id)",
            provider: provider?.rawValue, audience: parsed.audience, sendAtMs: parsed.sendAtMs ?? nowMs, perMinute: perMinute, chunkSize: chunkSize,
            createdAtMs: nowMs, idempotencyKey: nil)
        draft.queuePriority = parsed.queuePriority
        draft.attributionMs = parsed.attributionMs
        if let test = parsed.test {
            draft.testSharePercent = test.sharePercent
            draft.testWindowMs = test.windowMs
            draft.winnerBy = test.winnerBy.rawValue
        } else if !parsed.variants.isEmpty {
            draft.winnerBy = nil
        }
        if let key { draft.idempotencyKey = "\(key.value)|\(try IdempotencyKey.fingerprint(request.body))" }
        // The media mode is checked before anything runs (optimize without the edge is a 400).
        let mediaCheck = self.mediaCheck
        let mediaMode = try mediaCheck?.mode(for: content) ?? .off
        let variants = parsed.variants
        let webhooks = context.configuration.webhooks
        let create: @Sendable () async -> ServerResponse = { [draft] in
            do throws(HTTPResponseError) {
                var draft = draft
                if let mediaCheck {
                    if variants.isEmpty {
                        let checked = try await mediaCheck.run(content, mode: mediaMode)
                        draft.payload = String(decoding: checked.notification.payload, as: UTF8.self)
                        draft.mediaReport = Self.report(checked.mediaReport)
                    }
                    for (index, variant) in variants.enumerated() {
                        var checked: PushSendRequest
                        do throws(HTTPResponseError) {
                            checked = try await mediaCheck.run(variant.content, mode: mediaMode)
                        } catch {
                            var named = error
                            named.field = "variants[\(index)]." + (error.field ?? variant.content.mediaField)
                            throw named
                        }
                        draft.variants.append(Self.variant(variant, checked: checked))
                    }
                } else {
                    draft.variants = variants.map { Self.variant($0, checked: $0.content) }
                }
                let ready = draft
                let (campaign, _) = try await run(retry: true) { try campaigns.createCampaign(ready, webhooks: webhooks) }
                return CampaignJSON.response(202, CampaignJSON.object(campaign, nowMs: ServerContext.nowMs, variants: ready.variants))
            } catch {
                return error.response
            }
        }
        return try await idempotency.respond(key: key, body: request.body, send: create)
    }

    /// The stored variant of a checked variant.
    static func variant(_ variant: CampaignRequest.Variant, checked: PushSendRequest) -> CampaignVariant {
        CampaignVariant(
            name: variant.name, pushID: checked.pushID, title: checked.title, payload: String(decoding: checked.notification.payload, as: UTF8.self),
            weight: variant.weight, mediaReport: report(checked.mediaReport))
    }

    /// The media check's report as stored (a JSON array), `nil` when nothing was checked.
    static func report(_ report: [RichPushJSONValue]) -> String? {
        report.isEmpty ? nil : String(decoding: RichPushJSONValue.array(report).jsonData(sortedKeys: true), as: UTF8.self)
    }
}
