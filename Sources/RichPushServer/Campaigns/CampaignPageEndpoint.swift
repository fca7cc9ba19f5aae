import Foundation

/// `GET /campaigns` and `GET /campaigns/{campaign_id}` (admin, as the dashboard): the campaigns
/// list and one campaign's page (refreshed every 5 s while it runs); `404` as a page.
struct CampaignPageEndpoint: CampaignEndpoint {
    let context: ServerContext

    var isPage: Bool { true }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let nowMs = ServerContext.nowMs
        let id = request.pathParameter
        guard id.isEmpty else {
            do throws(HTTPResponseError) {
                let campaign = try await find(id) { store, id in try store.campaign(id) }
                let (variants, funnels) = try await ShowCampaignEndpoint.variants(of: campaign, context: context)
                let pushIDs = variants.isEmpty ? [campaign.pushID] : variants.map(\.pushID)
                let media = try await context.read { store in try pushIDs.flatMap { try store.pushMedia($0) } }
                // Who saw it: the campaign's push (the first variant's, with variants; each variant's page has its own).
                let recipients = try await RecipientsPanel.section(
                    request, pushID: pushIDs[0], base: "/campaigns/" + HTML.urlComponent(campaign.id), context: context)
                return .html(
                    200, CampaignPage.detail(campaign, generatedAtMs: nowMs, media: media, variants: variants, funnels: funnels, recipients: recipients))
            } catch var error {
                error.page = CampaignPage.message(error.message, generatedAtMs: nowMs)
                throw error
            }
        }
        let campaigns = try campaignStore()
        let before: String?
        do {
            before = try ListCampaignsEndpoint.cursor(request.query["before"])
        } catch var error as HTTPResponseError {
            error.page = CampaignPage.message(
                "The parameter before is not valid: \(error.message); follow the Older link of the campaigns page.", generatedAtMs: nowMs,
                title: "bad before parameter")
            throw error
        }
        let limit = 50
        let page = try await run { try campaigns.campaigns(limit: limit + 1, before: before) }
        let shown = Array(page.prefix(limit))
        return .html(200, CampaignPage.list(shown, next: page.count > limit ? shown.last?.id : nil, generatedAtMs: nowMs))
    }
}
