import Foundation

/// A campaign as the store keeps it: what is sent, its state and its counters (kept in the same
/// transaction as the results they count).
public struct CampaignRecord: Sendable, Equatable {
    /// The campaign id.
    public var id: String
    /// The push id the payload carries.
    public var pushID: String
    /// `scheduled`, `running`, `finished` or `cancelled`.
    public var state: String
    /// The alert title, if any.
    public var title: String?
    /// The payload bytes as sent (UTF-8 JSON).
    public var payload: String
    /// `apns-topic`.
    public var topic: String
    /// `apns-push-type`.
    public var pushType: String
    /// `apns-priority`, if given.
    public var priority: Int?
    /// `apns-expiration`, UNIX seconds, if given.
    public var expiration: Int?
    /// `apns-collapse-id` of every send.
    public var collapseID: String
    /// The provider named, `nil` = each device's own.
    public var provider: String?
    /// The audience's kind (`tokens`, `user_ids`, `all`, `tags`).
    public var audience: String
    /// When it starts (or started), ms since 1970.
    public var sendAtMs: Int
    /// The most sends per minute over all instances, `nil` = unthrottled.
    public var perMinute: Int?
    /// Targets in the audience snapshot.
    public var targets: Int
    /// Targets the provider answered for.
    public var sent: Int
    /// Targets the provider accepted.
    public var accepted: Int
    /// Targets not sent: known inactive, bad or deleted.
    public var skipped: Int
    /// Targets with a result other than accepted or skipped (refused, inactive, retries exhausted, …).
    public var failed: Int
    /// Targets marked in flight (handed to a provider) without a recorded result yet.
    public var inFlight: Int
    /// Sends repeated because the lease holder died (or lost its lease) with them in flight.
    public var resentAfterCrash: Int
    /// When it was created, ms since 1970.
    public var createdAtMs: Int
    /// When it started running, ms since 1970.
    public var startedAtMs: Int?
    /// When it finished or was cancelled, ms since 1970.
    public var finishedAtMs: Int?
    /// The last error a provider stopped a chunk with (configuration), if any.
    public var lastError: String?
    /// Its place among running campaigns (0…9; higher first, equal ones take turns by chunk).
    public var queuePriority = 0
    /// What the send-time media check found and did at creation (JSON array), `nil` without media.
    public var mediaReport: String?
    /// With variants: the share of the audience in the test (percent), `nil` = all split.
    public var testSharePercent: Int?
    /// How long after the start the winner is picked, ms.
    public var testWindowMs: Int?
    /// What picks the winner (`display_to_open`, `conversions`), `nil` without a test.
    public var winnerBy: String?
    /// The winning variant once picked.
    public var winner: String?
    /// When the winner was picked, ms since 1970.
    public var winnerAtMs: Int?
    /// How long after a send a conversion counts for it, ms.
    public var attributionMs: Int?
    /// A throttled campaign whose second's budget is spent, or one a provider stopped, is not
    /// claimed before this (ms since 1970, the database's clock).
    public var nextClaimMs = 0
    /// How many variants it has (0: one content, the campaign's payload).
    public var variantCount = 0

    /// Makes a record.
    public init(
        id: String, pushID: String, state: String, title: String?, payload: String, topic: String, pushType: String, priority: Int?,
        expiration: Int?, collapseID: String, provider: String?, audience: String, sendAtMs: Int, perMinute: Int?, targets: Int, sent: Int,
        accepted: Int, skipped: Int, failed: Int, inFlight: Int, resentAfterCrash: Int, createdAtMs: Int, startedAtMs: Int?,
        finishedAtMs: Int?, lastError: String?
    ) {
        self.id = id
        self.pushID = pushID
        self.state = state
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
        self.targets = targets
        self.sent = sent
        self.accepted = accepted
        self.skipped = skipped
        self.failed = failed
        self.inFlight = inFlight
        self.resentAfterCrash = resentAfterCrash
        self.createdAtMs = createdAtMs
        self.startedAtMs = startedAtMs
        self.finishedAtMs = finishedAtMs
        self.lastError = lastError
    }

    /// The columns of schema version 7, in `init(text:int:)`'s order (what `richpush migrate`
    /// copies from a file of any version since).
    static let version7Columns = """
        campaign_id, push_id, state, title, payload, topic, push_type, priority, expiration, collapse_id, provider, audience, send_at_ms,
        per_minute, targets, sent, accepted, skipped, failed, in_flight, resent_after_crash, created_at_ms, started_at_ms, finished_at_ms,
        last_error
        """

    /// The columns of schema version 10 after those of version 7, in `init(text:int:)`'s order.
    static let version10Columns = """
        queue_priority, media_report, test_share, test_window_ms, winner_by, winner, winner_at_ms, attribution_ms, next_claim_ms,
        variant_count
        """

    /// The columns every read selects, in `init(text:int:)`'s order.
    static let columns = version7Columns + ", " + version10Columns

    /// Reads a row of `columns`.
    ///
    /// - Parameters:
    ///   - text: column i as text.
    ///   - int: column i as an integer.
    init(text: (Int) -> String?, int: (Int) -> Int?) {
        self.init(
            id: text(0) ?? "", pushID: text(1) ?? "", state: text(2) ?? "", title: text(3), payload: text(4) ?? "{}", topic: text(5) ?? "",
            pushType: text(6) ?? "alert", priority: int(7), expiration: int(8), collapseID: text(9) ?? "", provider: text(10),
            audience: text(11) ?? "", sendAtMs: int(12) ?? 0, perMinute: int(13), targets: int(14) ?? 0, sent: int(15) ?? 0,
            accepted: int(16) ?? 0, skipped: int(17) ?? 0, failed: int(18) ?? 0, inFlight: int(19) ?? 0, resentAfterCrash: int(20) ?? 0,
            createdAtMs: int(21) ?? 0, startedAtMs: int(22), finishedAtMs: int(23), lastError: text(24))
        queuePriority = int(25) ?? 0
        mediaReport = text(26)
        testSharePercent = int(27)
        testWindowMs = int(28)
        winnerBy = text(29)
        winner = text(30)
        winnerAtMs = int(31)
        attributionMs = int(32)
        nextClaimMs = int(33) ?? 0
        variantCount = int(34) ?? 0
    }

    /// Whether it was created with variants (its variants are `CampaignStore.campaignVariants`).
    public var hasVariants: Bool { variantCount > 0 }
}
