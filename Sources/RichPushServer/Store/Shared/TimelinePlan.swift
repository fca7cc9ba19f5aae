import Foundation

/// How the receipts-over-time chart is read from the stored per-second, per-minute, per-hour and
/// per-day counts: a bar width for the range, and the stored width summed into each bar.
///
/// The bar width is the smallest of 1 s … 30 days that fits the range in `maximumBuckets` bars;
/// the source is the largest stored width that divides it (per-second counts only for the last
/// `secondsRetentionMs`, the store drops older ones). A chart then reads at most
/// `maximumBuckets` × 60 stored rows (e.g. 60 bars of 30 s from 1,800 per-second rows), however
/// many receipts or pushes there are.
struct TimelinePlan: Equatable {
    /// Bar widths, in seconds.
    static let widthsSeconds = [
        1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800, 2_592_000,
    ]
    /// Stored widths, in ms: second, minute, hour, day.
    static let storedWidthsMs = [1_000, 60_000, 3_600_000, 86_400_000]
    /// How long per-second counts are kept: 48 h, in ms.
    static let secondsRetentionMs = 48 * 3_600_000

    /// Bar width, in seconds.
    var bucketSeconds: Int
    /// The stored width summed into bars, in ms.
    var sourceWidthMs: Int
    /// The first bar's start (aligned to the bar width), ms since 1970.
    var originMs: Int
    /// Number of bars.
    var count: Int

    /// Plans a chart of `[fromMs, toMs]`.
    ///
    /// - Parameters:
    ///   - fromMs: the first instant shown, ms since 1970.
    ///   - toMs: the last instant shown, ms since 1970 (≥ `fromMs`).
    ///   - maximumBuckets: the most bars.
    ///   - newestMs: the newest receipt's time (per-second counts reach back 48 h from it).
    /// - Returns: the plan.
    static func plan(fromMs: Int, toMs: Int, maximumBuckets: Int, newestMs: Int) -> TimelinePlan {
        let last = max(fromMs, toMs)
        let spanSeconds = max(1, (last - fromMs) / 1000 + 1)
        let limit = max(1, maximumBuckets)
        var width = widthsSeconds.first { spanSeconds / $0 < limit } ?? widthsSeconds[widthsSeconds.count - 1]
        if width < 60 && fromMs < newestMs - secondsRetentionMs { width = max(width, 60) }
        let widthMs = width * 1000
        let source = storedWidthsMs.last { $0 <= widthMs && widthMs % $0 == 0 } ?? 1_000
        let origin = Self.floor(fromMs, widthMs)
        let count = (last - origin) / widthMs + 1
        return TimelinePlan(bucketSeconds: width, sourceWidthMs: source, originMs: origin, count: count)
    }

    /// The bars: every bar of the plan, oldest first, gaps as zeros, each the sum of the stored
    /// rows that fall in it (rows outside the plan are left out).
    ///
    /// - Parameter rows: stored rows of `sourceWidthMs`: bucket start (ms since 1970), delivered, opened.
    /// - Returns: `count` bars of `bucketSeconds` from `originMs`.
    func bars(_ rows: [(bucketMs: Int, delivered: Int, opened: Int)]) -> [DashboardSnapshot.TimeBucket] {
        let widthMs = bucketSeconds * 1000
        var bars = (0..<count).map { DashboardSnapshot.TimeBucket(startMs: originMs + $0 * widthMs, delivered: 0, opened: 0) }
        // Rows before the origin are left out before dividing: the division truncates toward
        // zero, so a row less than one bar early would land in the first bar.
        for row in rows where row.bucketMs >= originMs {
            let index = (row.bucketMs - originMs) / widthMs
            guard bars.indices.contains(index) else { continue }
            bars[index].delivered += row.delivered
            bars[index].opened += row.opened
        }
        return bars
    }

    /// `value` rounded down to a multiple of `step` (also for negative values).
    static func floor(_ value: Int, _ step: Int) -> Int {
        let q = value / step
        return (value % step < 0 ? q - 1 : q) * step
    }
}
