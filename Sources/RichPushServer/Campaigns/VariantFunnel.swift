import Foundation
import RichPushCore

/// One variant's funnel: sent → accepted → displayed → opened (→ converted), from its own push's
/// figures (each variant carries its own push id) and its conversions.
public struct VariantFunnel: Sendable, Equatable {
    /// The variant (`A` … `E`).
    public var variant: String
    /// Its push id.
    public var pushID: String
    /// Its share of the split, percent.
    public var weight: Int
    /// Tokens the provider answered for.
    public var sent: Int
    /// Tokens the provider accepted.
    public var accepted: Int
    /// Delivered receipts: the extension handed the notification to iOS (shown).
    public var displayed: Int
    /// Delivered receipts with the variant's media attached (its media URL was shown as designed).
    public var displayedWithMedia: Int
    /// Opened receipts.
    public var opened: Int
    /// Distinct converters (`POST /v1/conversions` inside the attribution window).
    public var converted: Int
    /// The conversions' total value.
    public var conversionValue: Double

    /// opened ÷ displayed, `nil` before a display.
    public var displayToOpen: Double? { displayed > 0 ? Double(opened) / Double(displayed) : nil }
    /// displayed ÷ accepted (the display rate), `nil` before an accepted send.
    public var displayRate: Double? { accepted > 0 ? Double(displayed) / Double(accepted) : nil }
    /// converted ÷ sent, `nil` before a send.
    public var conversionRate: Double? { sent > 0 ? Double(converted) / Double(sent) : nil }

    /// Makes a funnel.
    public init(
        variant: String, pushID: String, weight: Int, sent: Int, accepted: Int, displayed: Int, displayedWithMedia: Int, opened: Int, converted: Int,
        conversionValue: Double
    ) {
        self.variant = variant
        self.pushID = pushID
        self.weight = weight
        self.sent = sent
        self.accepted = accepted
        self.displayed = displayed
        self.displayedWithMedia = displayedWithMedia
        self.opened = opened
        self.converted = converted
        self.conversionValue = conversionValue
    }

    /// The funnels of a campaign's variants, read from the store (blocking: run it on a lane).
    ///
    /// - Parameters:
    ///   - campaign: the campaign.
    ///   - campaigns: its store's campaigns.
    ///   - store: the store's figures (and its conversions, when it keeps them).
    /// - Returns: one funnel per variant, in name order (empty without variants).
    /// - Throws: `RichPushError` `store`.
    static func read(_ campaign: CampaignRecord, campaigns: any CampaignStore, store: any ReceiptStore & StatisticsStore) throws -> [VariantFunnel] {
        let variants = try campaigns.campaignVariants(campaign.id)
        guard !variants.isEmpty else { return [] }
        let conversions = (try? store.recipientStore()).flatMap { try? $0.conversionTotals(pushIDs: variants.map(\.pushID)) } ?? [:]
        return try variants.map { v in
            let stats = try store.push(v.pushID)
            let totals = conversions[v.pushID] ?? ConversionTotals()
            return VariantFunnel(
                variant: v.name, pushID: v.pushID, weight: v.weight, sent: stats?.sent ?? 0, accepted: stats?.accepted ?? 0,
                displayed: stats?.delivered ?? 0, displayedWithMedia: stats?.outcomes[RichPushOutcome.mediaAttached.rawValue] ?? 0,
                opened: stats?.opened ?? 0, converted: totals.converted, conversionValue: totals.value)
        }
    }
}
