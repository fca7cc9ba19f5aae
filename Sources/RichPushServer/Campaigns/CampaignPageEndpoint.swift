import Foundation

/// `GET /campaigns` and `GET /campaigns/{campaign_id}` (admin, as the dashboard): the campaigns
/// list and one campaign's page (refreshed every 5 s while it runs); `404` as a page.
struct CampaignPageEndpoint: AdminPageEndpoint {
    let campaigns: (any CampaignStore)?
    private let queue = BlockingQueue(label: "richpush.campaigns.pages", concurrent: true)

    init(campaigns: (any CampaignStore)?) {
        self.campaigns = campaigns
    }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let nowMs = ServerContext.nowMs
        let id = request.pathParameter
        guard id.isEmpty else {
            do {
                let campaign = try await ShowCampaignEndpoint.find(id, in: campaigns, queue: queue) { store, id in try store.campaign(id) }
                return .html(200, CampaignPage.detail(campaign, generatedAtMs: nowMs))
            } catch var error as HTTPResponseError {
                error.page = CampaignPage.message(error.message, generatedAtMs: nowMs)
                throw error
            }
        }
        guard let campaigns else {
            throw HTTPResponseError(status: 501, code: "campaigns_unsupported", message: "this server's store keeps no campaigns")
        }
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
        let page: [CampaignRecord]
        do {
            page = try await queue.run { try campaigns.campaigns(limit: limit + 1, before: before) }
        } catch {
            throw HTTPResponseError.store(error, retry: false)
        }
        let shown = Array(page.prefix(limit))
        return .html(200, CampaignPage.list(shown, next: page.count > limit ? shown.last?.id : nil, generatedAtMs: nowMs))
    }
}
