import Foundation
import RichPushCore

/// `GET /v1/campaigns/{campaign_id}` (admin): one campaign's state and counters, with each
/// variant's funnel (sent → accepted → displayed → opened → converted) for a campaign with
/// variants; `404 unknown_campaign`.
struct ShowCampaignEndpoint: CampaignEndpoint {
    let context: ServerContext

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let campaign = try await find(request.pathParameter) { store, id in try store.campaign(id) }
        let (variants, funnels) = try await Self.variants(of: campaign, context: context)
        return CampaignJSON.response(200, CampaignJSON.object(campaign, nowMs: ServerContext.nowMs, variants: variants, funnels: funnels))
    }

    /// A campaign's variants and their funnels (empty without variants), read on the `read` lane.
    ///
    /// - Parameters:
    ///   - campaign: the campaign.
    ///   - context: the server's store.
    /// - Returns: the variants and their funnels.
    /// - Throws: `HTTPResponseError` 503 `store_error`.
    static func variants(of campaign: CampaignRecord, context: ServerContext) async throws(HTTPResponseError) -> ([CampaignVariant], [VariantFunnel]) {
        guard campaign.hasVariants else { return ([], []) }
        return try await context.read { store in
            let campaigns = try store.campaignStore()
            return (try campaigns.campaignVariants(campaign.id), try VariantFunnel.read(campaign, campaigns: campaigns, store: store))
        }
    }
}
