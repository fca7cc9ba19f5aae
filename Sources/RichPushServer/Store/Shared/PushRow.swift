import Foundation
import RichPushCore

/// One push as the stores read it: its figures plus what the per-push page adds (title, send
/// times, the `elapsed_ms` distribution).
///
/// The arithmetic from rows to figures lives here once; `SQLiteStore` and `PostgresStore` only
/// fetch the rows (`push_counts`, `pushes`, `push_send_batches`, `push_elapsed`) and hand them in,
/// so both stores answer the same figures to the byte (`StoreEquivalenceTests`).
struct PushRow {
    /// The receipts' side of a push: its `push_counts` rows summed.
    struct Counts {
        var delivered = 0
        var opened = 0
        /// Bytes of media over delivered receipts.
        var mediaBytes = 0
        /// The first and last receipt, ms since 1970.
        var firstMs: Int?
        var lastMs: Int?
        /// Delivered receipts per outcome and per reason.
        var outcomes: [String: Int] = [:]
        var reasons: [String: Int] = [:]

        /// Adds one `push_counts` row (PostgreSQL: one group of its slots, already summed).
        ///
        /// - Parameters:
        ///   - event: `delivered` or `opened`.
        ///   - outcome: the outcome, empty for none.
        ///   - reason: the reason, empty for none.
        ///   - receipts: distinct receipts in the row.
        ///   - mediaBytes: their media, in bytes.
        ///   - firstMs: the row's first receipt, ms since 1970.
        ///   - lastMs: the row's last receipt, ms since 1970.
        mutating func add(event: String, outcome: String, reason: String, receipts: Int, mediaBytes: Int, firstMs: Int, lastMs: Int) {
            if event == RichPushReceipt.Event.delivered.rawValue {
                delivered += receipts
                self.mediaBytes += mediaBytes
                if !outcome.isEmpty { outcomes[outcome, default: 0] += receipts }
                if !reason.isEmpty { reasons[reason, default: 0] += receipts }
            } else if event == RichPushReceipt.Event.opened.rawValue {
                opened += receipts
            }
            self.firstMs = min(self.firstMs ?? firstMs, firstMs)
            self.lastMs = max(self.lastMs ?? lastMs, lastMs)
        }
    }

    /// The send side of a push: its `pushes` row.
    struct Send {
        var sent: Int?
        var accepted: Int?
        /// The first and last send, ms since 1970.
        var firstSentMs: Int?
        var lastSentMs: Int?
        var title: String?
        var skipped: Int?
    }

    var statistics: PushStatistics
    var title: String?
    var firstSentMs: Int?
    var lastSentMs: Int?
    /// `elapsed_ms` → delivered receipts, ascending.
    var distribution: [(value: Int, count: Int)]

    /// A push's figures from its rows; `nil` when it has neither receipts nor a send.
    ///
    /// - Parameters:
    ///   - pushID: the push.
    ///   - counts: its `push_counts` rows summed, `nil` without receipts.
    ///   - send: its `pushes` row, `nil` without a recorded send.
    ///   - sources: the distinct sources of its send batches, sorted (byte order).
    ///   - distribution: its `push_elapsed` rows, ascending by `elapsed_ms`.
    init?(pushID: String, counts: Counts?, send: Send?, sources: [String], distribution: [(value: Int, count: Int)]) {
        guard counts != nil || send != nil else { return nil }
        let receipts = counts ?? Counts()
        // Without receipts, first and last seen are the sends'.
        let first = counts == nil ? send?.firstSentMs : receipts.firstMs
        let last = counts == nil ? send?.lastSentMs : receipts.lastMs
        statistics = PushStatistics(
            pushID: pushID, sent: send?.sent, accepted: send?.accepted, delivered: receipts.delivered, opened: receipts.opened,
            outcomes: receipts.outcomes, reasons: receipts.reasons, mediaBytes: receipts.mediaBytes,
            elapsedMs: .init(
                count: distribution.map(\.count).reduce(0, +), p50: PushStatistics.percentile(distribution, 50),
                p95: PushStatistics.percentile(distribution, 95)),
            firstSeen: first.map(SQLiteStore.iso8601), lastSeen: last.map(SQLiteStore.iso8601),
            skipped: send?.skipped, sources: sources
        )
        title = send?.title
        firstSentMs = send?.firstSentMs
        lastSentMs = send?.lastSentMs
        self.distribution = distribution
    }

    /// The per-push page's data.
    ///
    /// - Parameter tokenOutcomes: device tokens per provider outcome, most first (`unknown` for none).
    /// - Returns: the detail, reasons most first (ties by name).
    func detail(tokenOutcomes: [(outcome: String, count: Int)]) -> PushDetail {
        let reasons = statistics.reasons.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { (reason: $0.key, count: $0.value) }
        return PushDetail(
            statistics: statistics, title: title, firstSentMs: firstSentMs, lastSentMs: lastSentMs,
            tokenOutcomes: tokenOutcomes, reasons: reasons, timing: DashboardSnapshot.timingHistogram(distribution))
    }
}
