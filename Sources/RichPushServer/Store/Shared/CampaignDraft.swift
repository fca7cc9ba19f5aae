import Foundation

/// A campaign to create (`CampaignStore.createCampaign`): what is sent, to whom, when and how fast.
public struct CampaignDraft: Sendable, Equatable {
    /// The campaign id (a UUID, lower case).
    public var id: String
    /// The push id the payload carries (receipts land in its funnel).
    public var pushID: String
    /// The alert title (or body), for lists.
    public var title: String?
    /// The payload bytes exactly as every target gets them (UTF-8 JSON).
    public var payload: String
    /// `apns-topic` (empty for FCM only).
    public var topic: String
    /// `apns-push-type`.
    public var pushType: String
    /// `apns-priority`, if given.
    public var priority: Int?
    /// `apns-expiration` in UNIX seconds, if given.
    public var expiration: Int?
    /// `apns-collapse-id` of every send (the caller's, or `campaign-<id>`), so a resent device
    /// shows one notification.
    public var collapseID: String
    /// The provider: every target's for `tokens`; for device audiences only devices of it
    /// (`nil`: each device through its own).
    public var provider: String?
    /// Who.
    public var audience: CampaignAudience
    /// When to start, ms since 1970.
    public var sendAtMs: Int
    /// The most sends per minute over all instances, `nil` = as fast as the provider takes them.
    public var perMinute: Int?
    /// Targets per chunk (the unit a worker leases).
    public var chunkSize: Int
    /// Now, ms since 1970.
    public var createdAtMs: Int
    /// The `Idempotency-Key` it was created with, if any: a second create with it returns this one.
    public var idempotencyKey: String?
    /// Its place among running campaigns (`queue_priority`, 0…9, default 0): a free worker takes
    /// a chunk of the highest priority that has one due; equal priorities take turns by chunk.
    public var queuePriority = 0
    /// What the send-time media check found and did at creation (the JSON array of
    /// `POST /v1/pushes`' `media`), `nil` when the content has no media URL.
    public var mediaReport: String?
    /// The variants (2…5), empty for a campaign of one content.
    public var variants: [CampaignVariant] = []
    /// With variants: the share of the audience (1…99 %) that gets the test; the rest waits for
    /// the winner. `nil`: the whole audience is split.
    public var testSharePercent: Int?
    /// How long after the start the winner is picked (once the test's chunks are done), ms.
    public var testWindowMs: Int?
    /// What picks the winner: `display_to_open` (opened ÷ displayed, the default) or `conversions`
    /// (conversions ÷ sent).
    public var winnerBy: String?
    /// How long after a send a conversion counts for it (`POST /v1/conversions`), ms.
    public var attributionMs: Int?

    /// Makes a draft.
    public init(
        id: String, pushID: String, title: String?, payload: String, topic: String, pushType: String, priority: Int?, expiration: Int?,
        collapseID: String, provider: String?, audience: CampaignAudience, sendAtMs: Int, perMinute: Int?, chunkSize: Int, createdAtMs: Int,
        idempotencyKey: String?
    ) {
        self.id = id
        self.pushID = pushID
        self.title = title
        self.payload = payload
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.provider = provider
        self.audience = audience
        self.sendAtMs = sendAtMs
        self.perMinute = perMinute
        self.chunkSize = chunkSize
        self.createdAtMs = createdAtMs
        self.idempotencyKey = idempotencyKey
    }
}
