import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Deletes the per-token targets of campaigns that ended more than `targetsRetentionDays` ago,
/// as a background service: at start and then every `purgeIntervalMs` (1 h), `purgeBatch` rows
/// per transaction with a short pause between batches (receipts and sends take the write lock in
/// between), the campaign that ended first first. The campaign's row and counters stay.
final class CampaignTargetsPurge: BackgroundService {
    var name: String { "campaign targets purge" }
    let campaigns: any CampaignStore
    let settings: CampaignSettings
    let lanes: StoreLanes
    let clock: @Sendable () -> Int
    private let log: @Sendable (String) -> Void

    /// - Parameters:
    ///   - campaigns: the store's campaigns.
    ///   - settings: the retention, batch and interval.
    ///   - lanes: the store's lanes (`background`).
    ///   - clock: this instance's clock, ms since 1970.
    ///   - log: where a failed purge or a purged count goes.
    init(
        campaigns: any CampaignStore, settings: CampaignSettings, lanes: StoreLanes, clock: @escaping @Sendable () -> Int,
        log: @escaping @Sendable (String) -> Void = ServiceGroup.standardError
    ) {
        self.campaigns = campaigns
        self.settings = settings
        self.lanes = lanes
        self.clock = clock
        self.log = log
    }

    func run() async throws {
        let campaigns = self.campaigns
        let batch = max(1, settings.purgeBatch)
        while !GracefulShutdown.isRequested {
            let bound = clock() - settings.targetsRetentionDays * 86_400_000
            var deleted = 0
            do {
                while !GracefulShutdown.isRequested {
                    let rows = try await lanes.run(.background) { try campaigns.purgeCampaignTargets(finishedBeforeMs: bound, limit: batch) }
                    if rows == 0 { break }
                    deleted += rows
                    // Between batches, receipts and sends take the write lock.
                    await GracefulShutdown.sleep(milliseconds: 10)
                }
            } catch {
                log("richpush serve: campaign targets purge: \((error as? RichPushError)?.message ?? "\(error)"); trying again in an hour")
            }
            if deleted > 0 { log("richpush serve: deleted \(deleted) targets of campaigns finished over \(settings.targetsRetentionDays) days ago") }
            await GracefulShutdown.sleep(milliseconds: settings.purgeIntervalMs)
        }
    }
}
