import Foundation

/// How a test picks its winner among a campaign's variants.
///
/// - `display_to_open` (the default): opened ÷ displayed, where displayed counts the delivered
///   receipts (what users saw). A variant whose image fails to attach on some devices shows text
///   there; those displays count, and their opens (or the lack of them) with them, so the variant
///   is judged on what was really shown. A ranking on sends (opened ÷ sent) would also mix in
///   what never reached a screen (offline devices, a slow extension), which says nothing about
///   the variant's content.
/// - `conversions`: converted ÷ sent (`POST /v1/conversions` inside the attribution window).
///
/// Ties go to more displays (or sends), then to the earlier variant. With no display (or no
/// conversion) at all, the first variant wins, and the summary says why.
public enum VariantRanking {
    /// What ranks the variants.
    public enum Metric: String, Sendable, CaseIterable {
        /// opened ÷ displayed.
        case displayToOpen = "display_to_open"
        /// converted ÷ sent.
        case conversions
    }

    /// The winner and why.
    public struct Winner: Sendable, Equatable {
        /// The winning variant.
        public var variant: String
        /// Why, for the log and the campaign page (`A: 22.0 % opened of 700 displayed; B: 19.0 % …`).
        public var summary: String
    }

    /// The winner of `funnels` by `metric`, `nil` without variants.
    ///
    /// - Parameters:
    ///   - funnels: the variants' funnels, in name order.
    ///   - metric: what ranks them.
    /// - Returns: the winner.
    public static func winner(_ funnels: [VariantFunnel], by metric: Metric) -> Winner? {
        guard let first = funnels.first else { return nil }
        func score(_ f: VariantFunnel) -> (rate: Double, base: Int)? {
            switch metric {
            case .displayToOpen: f.displayToOpen.map { ($0, f.displayed) }
            case .conversions: f.conversionRate.flatMap { f.converted > 0 || $0 > 0 ? ($0, f.sent) : nil }
            }
        }
        let scored = funnels.compactMap { f in score(f).map { (f, $0) } }
        let summary = funnels.map { f -> String in
            switch metric {
            case .displayToOpen:
                let rate = f.displayToOpen.map { String(format: "%.1f %%", $0 * 100) } ?? "–"
                return "\(f.variant): \(rate) opened of \(f.displayed) displayed"
            case .conversions:
                let rate = f.conversionRate.map { String(format: "%.1f %%", $0 * 100) } ?? "–"
                return "\(f.variant): \(rate) converted of \(f.sent) sent"
            }
        }.joined(separator: "; ")
        guard
            let best = scored.max(by: { a, b in
                if a.1.rate != b.1.rate { return a.1.rate < b.1.rate }
                if a.1.base != b.1.base { return a.1.base < b.1.base }
                return a.0.variant > b.0.variant
            })
        else {
            let nothing = metric == .displayToOpen ? "no display was reported" : "no conversion was recorded"
            return Winner(variant: first.variant, summary: "\(nothing) during the test; \(first.variant), the first, by default (\(summary))")
        }
        return Winner(variant: best.0.variant, summary: "by \(metric.rawValue): \(summary)")
    }
}
