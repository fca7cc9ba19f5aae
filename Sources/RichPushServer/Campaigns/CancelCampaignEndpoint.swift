import Foundation
import RichPushCore

/// `POST /v1/campaigns/{campaign_id}/cancel` (admin): no new chunk of the campaign is claimed or
/// sent (what is in flight finishes); `200` with the campaign (again for one already cancelled:
/// a retried cancel), `409 not_cancellable` once it finished, `404 unknown_campaign`.
struct CancelCampaignEndpoint: CampaignEndpoint {
    let context: ServerContext
    /// A cancel is a request write: one at a time with the others.
    var lane: StoreLanes.Lane { .write }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let nowMs = ServerContext.nowMs
        let webhooks = context.configuration.webhooks
        let campaign = try await find(request.pathParameter) { store, id in
            try store.cancelCampaign(id, atMs: nowMs, webhooks: webhooks)
        }
        guard campaign.state == "cancelled" else {
            throw HTTPResponseError(
                status: 409, code: "not_cancellable",
                message: "campaign \(campaign.id) is \(campaign.state): only a scheduled or running campaign can be cancelled")
        }
        return CampaignJSON.response(200, CampaignJSON.object(campaign, nowMs: nowMs))
    }
}
