import Foundation
import RichPushCore

/// `GET /v1/campaigns?limit=20&before=<campaign_id>` (admin): a page of campaigns, newest first,
/// with the cursor of the next page (`next_before`, `null` on the last).
struct ListCampaignsEndpoint: CampaignEndpoint {
    /// The most campaigns per page.
    static let maximumLimit = 100

    let context: ServerContext

    /// The `before` cursor of a page, checked: a campaign id as `next_before` gives it (1…64
    /// bytes of `0-9a-f-`); the API and the dashboard's `/campaigns` check it the same way.
    ///
    /// - Parameter raw: the query's `before`, if given.
    /// - Returns: the cursor, `nil` when not given.
    /// - Throws: `HTTPResponseError` 400 naming `before` for anything else.
    static func cursor(_ raw: String?) throws -> String? {
        guard let raw else { return nil }
        guard (1...64).contains(raw.utf8.count), raw.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || $0 == 45 }) else {
            throw HTTPResponseError(field: "before", message: "before must be a campaign id from next_before of the previous page")
        }
        return raw
    }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let campaigns = try campaignStore()
        var limit = 20
        if let raw = request.query["limit"] {
            guard raw.utf8.count <= 4, let n = Int(raw), (1...Self.maximumLimit).contains(n) else {
                throw HTTPResponseError(field: "limit", message: "limit must be an integer from 1 to \(Self.maximumLimit)")
            }
            limit = n
        }
        let before = try Self.cursor(request.query["before"])
        let wanted = limit + 1
        let page = try await run { try campaigns.campaigns(limit: wanted, before: before) }
        let nowMs = ServerContext.nowMs
        let shown = page.prefix(limit)
        let next: RichPushJSONValue = page.count > limit ? (shown.last.map { .string($0.id) } ?? .null) : .null
        return CampaignJSON.response(200, .object(["campaigns": .array(shown.map { CampaignJSON.object($0, nowMs: nowMs) }), "next_before": next]))
    }
}
