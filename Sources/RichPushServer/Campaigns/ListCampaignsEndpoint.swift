import Foundation
import RichPushCore

/// `GET /v1/campaigns?limit=20&before=<campaign_id>` (admin): a page of campaigns, newest first,
/// with the cursor of the next page (`next_before`, `null` on the last).
struct ListCampaignsEndpoint: CampaignEndpoint {
    /// The most campaigns per page.
    static let maximumLimit = 100

    let context: ServerContext
    let queue = BlockingQueue(label: "richpush.campaigns.list", concurrent: true)

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let campaigns = try campaignStore()
        var limit = 20
        if let raw = request.query["limit"] {
            guard raw.utf8.count <= 4, let n = Int(raw), (1...Self.maximumLimit).contains(n) else {
                throw HTTPResponseError(field: "limit", message: "limit must be an integer from 1 to \(Self.maximumLimit)")
            }
            limit = n
        }
        let before = request.query["before"]
        if let before {
            guard Self.isCampaignID(before) else {
                throw HTTPResponseError(field: "before", message: "before must be a campaign id from next_before of the previous page")
            }
        }
        let wanted = limit + 1
        let page = try await run { try campaigns.campaigns(limit: wanted, before: before) }
        let nowMs = ServerContext.nowMs
        let shown = page.prefix(limit)
        let next: JSONValue = page.count > limit ? (shown.last.map { .string($0.id) } ?? .null) : .null
        return CampaignJSON.response(200, .object(["campaigns": .array(shown.map { CampaignJSON.object($0, nowMs: nowMs) }), "next_before": next]))
    }
}
