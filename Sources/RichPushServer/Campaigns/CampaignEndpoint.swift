import Foundation

/// What the campaign endpoints (`/v1/campaigns…` and the pages `/campaigns…`) share: the
/// admin's, never cached, and store work against the store's campaigns on one of the store's
/// lanes (`501 campaigns_unsupported` for a store without, `503 store_error` when it fails).
protocol CampaignEndpoint: Endpoint {
    /// The settings, the store and its lanes.
    var context: ServerContext { get }
    /// The lane of the endpoint's store work (reads: `read`).
    var lane: StoreLanes.Lane { get }
}

extension CampaignEndpoint {
    var access: EndpointAccess { .admin }
    var noStore: Bool { true }
    var lane: StoreLanes.Lane { .read }

    /// The store's campaigns.
    ///
    /// - Returns: the campaign store.
    /// - Throws: `HTTPResponseError` 501 `campaigns_unsupported` for a store that keeps none.
    func campaignStore() throws(HTTPResponseError) -> any CampaignStore {
        do {
            return try context.store.campaignStore()
        } catch {
            throw HTTPResponseError(status: 501, code: "campaigns_unsupported", message: "this server's store keeps no campaigns (SQLite and PostgreSQL do)")
        }
    }

    /// Runs store work on the endpoint's lane.
    ///
    /// - Parameters:
    ///   - retry: whether a failure's `503` says `Retry-After: 1` (a write).
    ///   - work: the work.
    /// - Returns: what it returned.
    /// - Throws: `HTTPResponseError` 503 `store_error`.
    func run<T: Sendable>(retry: Bool = false, _ work: @escaping @Sendable () throws -> T) async throws(HTTPResponseError) -> T {
        do {
            return try await context.lanes.run(lane, work)
        } catch {
            throw .store(error, retry: retry)
        }
    }

    /// Reads (or changes) the campaign a path parameter names.
    ///
    /// - Parameters:
    ///   - id: the path parameter.
    ///   - work: reads or changes the campaign, `nil` when unknown.
    /// - Returns: the campaign.
    /// - Throws: `HTTPResponseError` 501 `campaigns_unsupported`, 400 `invalid_campaign_id`, 503
    ///   `store_error`, 404 `unknown_campaign`.
    func find(_ id: String, _ work: @escaping @Sendable (any CampaignStore, String) throws -> CampaignRecord?) async throws(HTTPResponseError)
        -> CampaignRecord
    {
        let campaigns = try campaignStore()
        guard Self.isCampaignID(id) else {
            throw HTTPResponseError(
                code: "invalid_campaign_id", message: "a campaign id is the UUID POST /v1/campaigns answered (lower-case hex and dashes)")
        }
        guard let found = try await run({ try work(campaigns, id) }) else {
            throw HTTPResponseError(status: 404, code: "unknown_campaign", message: "no campaign \(id); GET /v1/campaigns lists them")
        }
        return found
    }

    /// Whether `id` has a campaign id's shape: 1…64 lower-case hex digits and dashes.
    static func isCampaignID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || $0 == 45 }
    }
}
