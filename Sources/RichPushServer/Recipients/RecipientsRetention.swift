import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Who saw a push is kept `recipientsRetentionDays` (`--recipients-days`, default 90), as a
/// background service: at start and then every hour, receipts older than that lose the device
/// they named and conversions their user and device, `batch` rows per transaction with a short
/// pause between; the receipts and conversions stay counted. A look with nothing due is a read.
final class RecipientsRetention: BackgroundService {
    var name: String { "recipients retention" }
    let store: any RecipientStore
    let days: Int
    let lanes: StoreLanes
    let clock: @Sendable () -> Int
    /// Rows changed per transaction.
    let batch: Int
    /// How often it looks, ms.
    let intervalMs: Int
    private let log: @Sendable (String) -> Void

    /// - Parameters:
    ///   - store: the store's recipients.
    ///   - days: the retention, days (> 0).
    ///   - lanes: the store's lanes (`background`).
    ///   - clock: this instance's clock, ms since 1970.
    ///   - batch: rows per transaction (default 5,000).
    ///   - intervalMs: how often it looks (default 1 h).
    ///   - log: where a failure or a count goes.
    init(
        store: any RecipientStore, days: Int, lanes: StoreLanes, clock: @escaping @Sendable () -> Int, batch: Int = 5_000, intervalMs: Int = 3_600_000,
        log: @escaping @Sendable (String) -> Void = ServiceGroup.standardError
    ) {
        self.store = store
        self.days = days
        self.lanes = lanes
        self.clock = clock
        self.batch = batch
        self.intervalMs = intervalMs
        self.log = log
    }

    func run() async throws {
        let store = self.store, batch = self.batch
        while !GracefulShutdown.isRequested {
            let bound = clock() - days * 86_400_000
            var cleared = 0
            do {
                while !GracefulShutdown.isRequested {
                    let rows = try await lanes.run(.background) { try store.clearRecipientReferences(before: bound, limit: batch) }
                    if rows == 0 { break }
                    cleared += rows
                    await GracefulShutdown.sleep(milliseconds: 10)
                }
            } catch {
                log("richpush serve: recipients retention: \((error as? RichPushError)?.message ?? "\(error)"); trying again in an hour")
            }
            if cleared > 0 { log("richpush serve: \(cleared) receipts and conversions older than \(days) days no longer name a device or user") }
            await GracefulShutdown.sleep(milliseconds: intervalMs)
        }
    }
}
