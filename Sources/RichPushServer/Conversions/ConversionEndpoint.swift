import Foundation
import RichPushCore

/// `POST /v1/conversions` (admin, from the app's backend): a conversion (a purchase, a sign-up)
/// attributed to the push that reached the user's (or the device's) registered device last, among
/// the named push or the campaign's variants, when it happened within the attribution window after
/// that send (the campaign's `attribution_hours`, default 24; for a push, 24 h). `201` recorded
/// (`200` for a `conversion_id` recorded before) with `{push_id, campaign_id, variant,
/// conversion_id, sent_at}`; `422 not_attributed` when no send of it to that user or device is
/// recorded, or it happened outside the window; `404 unknown_campaign`; `400` naming the field.
struct ConversionEndpoint: Endpoint {
    let context: ServerContext

    var access: EndpointAccess { .admin }
    var contentTypes: [String]? { ["application/json"] }
    var noStore: Bool { true }
    /// 8 KB: a push or campaign id, a user id of 128 bytes and a conversion id of 128, each of
    /// which JSON may write as `\u` escapes (6 bytes a character), are well inside it.
    var maximumBody: Int { 8_192 }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let parsed = try ConversionRequest(body: request.body)
        let store = try RecipientsEndpoint(context: context).recipientStore()
        let nowMs = ServerContext.nowMs
        var pushIDs: [String] = parsed.pushID.map { [$0] } ?? []
        var campaign: CampaignRecord?
        var variants: [CampaignVariant] = []
        var windowMs = CampaignRequest.defaultAttributionHours * 3_600_000
        if let campaignID = parsed.campaignID {
            let found = try await context.read { store -> (CampaignRecord, [CampaignVariant])? in
                let campaigns = try store.campaignStore()
                guard let campaign = try campaigns.campaign(campaignID) else { return nil }
                return (campaign, try campaigns.campaignVariants(campaignID))
            }
            guard let found else {
                throw HTTPResponseError(status: 404, code: "unknown_campaign", message: "no campaign \(campaignID); GET /v1/campaigns lists them")
            }
            (campaign, variants) = found
            pushIDs = variants.isEmpty ? [found.0.pushID] : variants.map(\.pushID)
            windowMs = found.0.attributionMs ?? windowMs
        }
        let ids = pushIDs, userID = parsed.userID, deviceID = parsed.deviceID
        guard let send = try await context.read({ _ in try store.latestSend(pushIDs: ids, userID: userID, deviceID: deviceID) }) else {
            throw HTTPResponseError(
                status: 422, code: "not_attributed",
                message:
                    "no send of \(parsed.campaignID.map { "campaign \($0)" } ?? "push \(IdentifierRule.displayable(ids.first ?? ""))") to \(userID.map { "user \($0)" } ?? "device \(deviceID ?? "")")'s registered devices is recorded; nothing was stored"
            )
        }
        let occurred = parsed.occurredAtMs ?? nowMs
        guard occurred >= send.sentAtMs, occurred - send.sentAtMs <= windowMs else {
            throw HTTPResponseError(
                status: 422, code: "not_attributed", field: "occurred_at",
                message:
                    "the conversion happened \(occurred < send.sentAtMs ? "before the push was sent" : "more than \(windowMs / 3_600_000) h after the push was sent (the attribution window)") at \(SQLiteStore.iso8601(send.sentAtMs)); nothing was stored"
            )
        }
        let variant = variants.first { $0.pushID == send.pushID }?.name
        let conversion = Conversion(
            pushID: send.pushID, conversionID: parsed.conversionID ?? "conv_" + UUID().uuidString.lowercased(), campaignID: campaign?.id,
            variant: variant, deviceID: send.deviceID ?? deviceID, userID: userID, value: parsed.value, occurredAtMs: occurred, recordedAtMs: nowMs)
        let created = try await context.write { _ in try store.recordConversion(conversion) }
        let body: RichPushJSONValue = .object([
            "push_id": .string(conversion.pushID), "campaign_id": conversion.campaignID.map(RichPushJSONValue.string) ?? .null,
            "variant": variant.map(RichPushJSONValue.string) ?? .null, "conversion_id": .string(conversion.conversionID),
            "sent_at": .string(SQLiteStore.iso8601(send.sentAtMs)), "created": .bool(created),
        ])
        return ServerResponse(status: created ? 201 : 200, contentType: "application/json", body: body.jsonData(sortedKeys: true) + Data("\n".utf8))
    }
}
