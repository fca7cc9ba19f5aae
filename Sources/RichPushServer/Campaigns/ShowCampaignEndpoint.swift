import Foundation
import RichPushCore

/// `GET /v1/campaigns/{campaign_id}` (admin): one campaign's state and counters; `404
/// unknown_campaign`.
struct ShowCampaignEndpoint: CampaignEndpoint {
    let context: ServerContext

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let campaign = try await find(request.pathParameter) { store, id in try store.campaign(id) }
        return CampaignJSON.response(200, CampaignJSON.object(campaign, nowMs: ServerContext.nowMs))
    }
}
