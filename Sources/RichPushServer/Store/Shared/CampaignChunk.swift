import Foundation

/// A chunk of a campaign's targets leased by one worker (`CampaignStore.claimCampaignChunk`).
public struct CampaignChunk: Sendable, Equatable {
    /// One target without a recorded result.
    public struct Target: Sendable, Equatable {
        /// The device token.
        public var token: String
        /// `apns` or `fcm`.
        public var provider: String
        /// Whether it was in flight under the lease before (its holder died): sending it again
        /// counts as `resent_after_crash`.
        public var wasInFlight: Bool
        /// Its variant (`A` … `E`); `nil` for a campaign of one content, and for a target that
        /// waited for the winner (it gets the winner).
        public var variant: String?

        /// Makes a target.
        public init(token: String, provider: String, wasInFlight: Bool, variant: String? = nil) {
            self.token = token
            self.provider = provider
            self.wasInFlight = wasInFlight
            self.variant = variant
        }
    }

    /// The campaign.
    public var campaign: CampaignRecord
    /// The chunk's number in the campaign.
    public var chunk: Int
    /// The lease's owner (unique per claim): writes under the lease name it.
    public var owner: String
    /// The targets without a result, in token order.
    public var targets: [Target]
    /// The campaign's variants (empty for one content).
    public var variants: [CampaignVariant] = []

    /// Makes a chunk.
    public init(campaign: CampaignRecord, chunk: Int, owner: String, targets: [Target], variants: [CampaignVariant] = []) {
        self.campaign = campaign
        self.chunk = chunk
        self.owner = owner
        self.targets = targets
        self.variants = variants
    }

    /// What a target is sent: its variant's push id and payload (the winner's for a target that
    /// waited for it), or the campaign's own.
    ///
    /// - Parameter target: the target.
    /// - Returns: the push id, the title and the payload.
    public func content(for target: Target) -> (pushID: String, title: String?, payload: String, variant: String?) {
        if let name = target.variant ?? campaign.winner, let variant = variants.first(where: { $0.name == name }) {
            return (variant.pushID, variant.title, variant.payload, variant.name)
        }
        return (campaign.pushID, campaign.title, campaign.payload, nil)
    }
}
