import Foundation

/// What became of one target of a leased chunk (`CampaignStore.recordCampaignResults`).
public struct CampaignTargetResult: Sendable, Equatable {
    /// The device token.
    public var token: String
    /// The outcome (`accepted`, `token_inactive`, `skipped`, …); `not_sent` puts the target back
    /// to pending (it was never handed to the provider).
    public var outcome: String
    /// The provider's HTTP status, if it answered.
    public var status: Int?
    /// The provider's reason, if any.
    public var reason: String?

    /// Makes a result.
    public init(token: String, outcome: String, status: Int?, reason: String?) {
        self.token = token
        self.outcome = outcome
        self.status = status
        self.reason = reason
    }

    /// Whether the target gets no result and goes back to pending (never handed to the provider).
    public var isNotSent: Bool { outcome == "not_sent" }
}
