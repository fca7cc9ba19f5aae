import Foundation
@_spi(RichPushInternal) import RichPushCore

/// `/metrics`' store growth (`StoreGrowth`), read at most once per `maximumAge` seconds (30):
/// a scrape every few seconds, or an attacker polling `/metrics`, costs the store one small read
/// per half minute.
final class StoreGrowthGauge: Sendable {
    /// How long a reading is reused, in seconds.
    static let maximumAge: Double = 30

    private let cached = Locked<(growth: StoreGrowth?, at: Double)?>(nil)
    private let now: @Sendable () -> Double

    /// Makes a gauge.
    ///
    /// - Parameter now: a monotonic clock in seconds (tests pass their own).
    init(now: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }) {
        self.now = now
    }

    /// The growth figures, from the cache when younger than `maximumAge`.
    ///
    /// - Parameter read: reads them from the store (`nil`: it cannot tell, or failed).
    /// - Returns: the figures, `nil` when unknown.
    func growth(_ read: () async -> StoreGrowth?) async -> StoreGrowth? {
        let time = now()
        if let entry = cached.withLock({ $0 }), time - entry.at < Self.maximumAge { return entry.growth }
        let fresh = await read()
        cached.withLock { $0 = (fresh, time) }
        return fresh
    }

    /// The Prometheus text of the figures.
    ///
    /// - Parameter growth: the figures.
    /// - Returns: `richpush_store_rows{table=…}` and `richpush_store_bytes`.
    static func render(_ growth: StoreGrowth) -> String {
        """
        # HELP richpush_store_rows Rows in the store by table (receipts and pushes from the summaries, devices an estimate); read at most every 30 s.
        # TYPE richpush_store_rows gauge
        richpush_store_rows{table="receipts"} \(growth.receipts)
        richpush_store_rows{table="pushes"} \(growth.pushes)
        richpush_store_rows{table="devices"} \(growth.devices)
        # HELP richpush_store_bytes Bytes the store takes on disk (SQLite file + WAL, PostgreSQL database); read at most every 30 s.
        # TYPE richpush_store_bytes gauge
        richpush_store_bytes \(growth.bytes)

        """
    }
}
