import Foundation
import RichPushCore

/// `GET /v1/campaigns/{campaign_id}` (admin): one campaign's state and counters; `404
/// unknown_campaign`.
struct ShowCampaignEndpoint: Endpoint {
    let context: ServerContext
    let campaigns: (any CampaignStore)?
    private let queue = BlockingQueue(label: "richpush.campaigns.read", concurrent: true)

    init(context: ServerContext, campaigns: (any CampaignStore)?) {
        self.context = context
        self.campaigns = campaigns
    }

    var access: EndpointAccess { .admin }
    var noStore: Bool { true }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let campaign = try await Self.find(request.pathParameter, in: campaigns, queue: queue) { store, id in try store.campaign(id) }
        return CampaignJSON.response(200, CampaignJSON.object(campaign, nowMs: ServerContext.nowMs))
    }

    /// Reads (or changes) one campaign named by a path parameter.
    ///
    /// - Throws: `HTTPResponseError` 400 `invalid_campaign_id`, 404 `unknown_campaign`, 501, 503 `store_error`.
    static func find(
        _ id: String, in campaigns: (any CampaignStore)?, queue: BlockingQueue,
        _ work: @escaping @Sendable (any CampaignStore, String) throws -> CampaignRecord?
    ) async throws -> CampaignRecord {
        guard let campaigns else {
            throw HTTPResponseError(status: 501, code: "campaigns_unsupported", message: "this server's store keeps no campaigns (SQLite and PostgreSQL do)")
        }
        guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || $0 == 45 }) else {
            throw HTTPResponseError(
                code: "invalid_campaign_id", message: "a campaign id is the UUID POST /v1/campaigns answered (lower-case hex and dashes)")
        }
        let found: CampaignRecord?
        do {
            found = try await queue.run { try work(campaigns, id) }
        } catch {
            throw HTTPResponseError.store(error, retry: false)
        }
        guard let found else {
            throw HTTPResponseError(status: 404, code: "unknown_campaign", message: "no campaign \(id); GET /v1/campaigns lists them")
        }
        return found
    }
}
