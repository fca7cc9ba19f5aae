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

        /// Makes a target.
        public init(token: String, provider: String, wasInFlight: Bool) {
            self.token = token
            self.provider = provider
            self.wasInFlight = wasInFlight
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

    /// Makes a chunk.
    public init(campaign: CampaignRecord, chunk: Int, owner: String, targets: [Target]) {
        self.campaign = campaign
        self.chunk = chunk
        self.owner = owner
        self.targets = targets
    }
}
