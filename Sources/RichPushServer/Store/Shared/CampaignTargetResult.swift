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
    /// The provider it went through (`apns`, `fcm`): the funnel's batch it is recorded in.
    public var provider: String?
    /// What the push's funnel records for the token (`push_tokens`, the push's sent and
    /// accepted), written with the result in one commit, and only when this call gave the
    /// target its result; `nil` = not in the funnel (not sent, or the server's configuration
    /// stopped it).
    public var send: PushSendRecord.TokenResult?

    /// Makes a result.
    ///
    /// - Parameters:
    ///   - token: the device token.
    ///   - outcome: the outcome.
    ///   - status: the provider's HTTP status, if it answered.
    ///   - reason: the provider's reason, if any.
    ///   - provider: the provider it went through.
    ///   - send: what the funnel records for it, `nil` for nothing.
    public init(token: String, outcome: String, status: Int?, reason: String?, provider: String? = nil, send: PushSendRecord.TokenResult? = nil) {
        self.token = token
        self.outcome = outcome
        self.status = status
        self.reason = reason
        self.provider = provider
        self.send = send
    }

    /// Whether the target gets no result and goes back to pending (never handed to the provider).
    public var isNotSent: Bool { outcome == "not_sent" }
}
