import Foundation

/// Campaigns (`POST /v1/campaigns`) and their durable sending, kept in the store so that every
/// instance on one database shares them (schema version 7).
///
/// A campaign's audience is snapshotted into `campaign_targets` (one row per device token, with
/// a state `pending` / `in_flight` / `done`) grouped in `campaign_chunks`, in the transaction
/// that creates the campaign, by one `INSERT … SELECT` in the database (memory flat in the
/// audience size). Workers lease a chunk (PostgreSQL: `FOR UPDATE SKIP LOCKED`), mark the tokens
/// they are about to send `in_flight` in one commit, record each result (`done`), and release
/// the chunk. A lease that runs out is taken over by any worker: `done` targets are never sent
/// again; `in_flight` ones are sent again and counted `resent_after_crash`.
///
/// Fairness (schema version 10): a claim takes a chunk of the running campaign of the highest
/// `queue_priority` that has one due, and among equal priorities the one whose chunk was claimed
/// longest ago, so campaigns take turns chunk by chunk; a campaign whose second's budget is spent
/// (or that a provider stopped) is not claimable until its `next_claim_ms`, so it holds no worker.
///
/// Time: every `nowMs` is the caller's clock. The SQLite store compares with it (one machine: its
/// clock is the database's); the PostgreSQL store compares leases, `send_at`, the throttle's
/// seconds and the hold-offs on the database's clock instead (`now()`), so an instance whose clock
/// is off takes over no chunk in flight (see `PostgresStore.Clock`).
public protocol CampaignStore: AnyObject, Sendable {
    /// Creates the campaign and its audience snapshot in one transaction (committed on return).
    ///
    /// - Parameters:
    ///   - draft: the campaign.
    ///   - webhooks: the endpoints a campaign with no target (finished at once) reports
    ///     `campaign.finished` to, in the same transaction; `nil`: none.
    /// - Returns: the stored campaign, and `false` when a campaign with the draft's idempotency
    ///   key existed already (it is returned unchanged).
    /// - Throws: `RichPushError` `store`.
    func createCampaign(_ draft: CampaignDraft, webhooks: WebhookSettings?) throws -> (campaign: CampaignRecord, created: Bool)

    /// One campaign, `nil` when unknown.
    ///
    /// - Parameter id: the campaign id.
    /// - Returns: the campaign.
    /// - Throws: `RichPushError` `store`.
    func campaign(_ id: String) throws -> CampaignRecord?

    /// A campaign's variants, in name order (empty for a campaign of one content).
    ///
    /// - Parameter id: the campaign id.
    /// - Returns: the variants.
    /// - Throws: `RichPushError` `store`.
    func campaignVariants(_ id: String) throws -> [CampaignVariant]

    /// A page of campaigns, newest first.
    ///
    /// - Parameters:
    ///   - limit: the most to return.
    ///   - before: the last campaign id of the previous page (`nil`: the newest).
    /// - Returns: the campaigns.
    /// - Throws: `RichPushError` `store`.
    func campaigns(limit: Int, before: String?) throws -> [CampaignRecord]

    /// Cancels a scheduled or running campaign: no new chunk is claimed or sent (the sends in
    /// flight finish).
    ///
    /// - Parameters:
    ///   - id: the campaign id.
    ///   - atMs: now, ms since 1970.
    ///   - webhooks: the endpoints the cancel is reported to (`campaign.finished`, state
    ///     `cancelled`, in the same transaction, only when this call cancelled it); `nil`: none.
    /// - Returns: the campaign after the change, `nil` when unknown.
    /// - Throws: `RichPushError` `store`.
    func cancelCampaign(_ id: String, atMs: Int, webhooks: WebhookSettings?) throws -> CampaignRecord?

    /// Starts the scheduled campaigns whose `send_at` has come, and finishes running ones with
    /// every chunk done.
    ///
    /// - Parameters:
    ///   - nowMs: now, ms since 1970.
    ///   - webhooks: the endpoints each campaign finished here is reported to
    ///     (`campaign.finished`, in the same transaction); `nil`: none.
    /// - Throws: `RichPushError` `store`.
    func advanceCampaigns(nowMs: Int, webhooks: WebhookSettings?) throws

    /// The running campaigns with a test whose winner is due: the test window is over and every
    /// chunk of the test is done, and no winner is set.
    ///
    /// - Parameter nowMs: now, ms since 1970.
    /// - Returns: the campaigns.
    /// - Throws: `RichPushError` `store`.
    func campaignsAwaitingWinner(nowMs: Int) throws -> [CampaignRecord]

    /// Sets a campaign's winner (once: a winner already set is kept) and makes the targets that
    /// waited for it claimable.
    ///
    /// - Parameters:
    ///   - id: the campaign.
    ///   - variant: the winning variant's name.
    ///   - nowMs: now, ms since 1970.
    /// - Returns: `true` when this call set it.
    /// - Throws: `RichPushError` `store`.
    @discardableResult
    func setCampaignWinner(_ id: String, variant: String, nowMs: Int) throws -> Bool

    /// Leases one chunk, pending or whose lease ran out, of the running campaign whose turn it is
    /// (see the protocol's discussion: priority, then the one claimed longest ago; a campaign held
    /// off until later is skipped, and a test's remainder waits for its winner).
    ///
    /// - Parameters:
    ///   - owner: the new lease's owner (unique per claim).
    ///   - nowMs: now, ms since 1970.
    ///   - leaseMs: how long the lease holds without renewal (ms).
    /// - Returns: the chunk with its targets that have no result, `nil` when none is free.
    /// - Throws: `RichPushError` `store`.
    func claimCampaignChunk(owner: String, nowMs: Int, leaseMs: Int) throws -> CampaignChunk?

    /// Marks targets in flight (one commit, before they are sent) and renews the lease.
    ///
    /// - Parameters:
    ///   - chunk: the leased chunk.
    ///   - tokens: the tokens about to be sent (may be empty: only renew).
    ///   - nowMs: now, ms since 1970.
    ///   - leaseMs: the lease's new length (ms).
    /// - Returns: the tokens marked — those of `tokens` without a recorded result (another worker
    ///   that held the lease before may have recorded some meanwhile): only these may be sent;
    ///   `nil` (nothing marked) when the lease was taken over or the campaign is no longer running.
    /// - Throws: `RichPushError` `store`.
    func markCampaignTargetsInFlight(_ chunk: CampaignChunk, tokens: [String], nowMs: Int, leaseMs: Int) throws -> [String]?

    /// Records results (one commit): each target without a result becomes `done` (or `pending`
    /// again for `not_sent`) and the campaign's counters change with it; targets already done
    /// are left as they are. With `funnel`, the same commit records the results' `send`s of
    /// the targets it gave a result in the push's funnel (`recordSend`, one batch per
    /// provider), so a token sent again after a takeover is counted once there too.
    ///
    /// - Parameters:
    ///   - chunk: the chunk the targets belong to.
    ///   - results: the results.
    ///   - funnel: the funnel batch to record them in; `nil`: none.
    /// - Throws: `RichPushError` `store`.
    func recordCampaignResults(_ chunk: CampaignChunk, results: [CampaignTargetResult], funnel: CampaignFunnelBatch?) throws

    /// Gives the lease up: the chunk is `done` when every target has a result, else pending
    /// again; the campaign finishes with its last chunk.
    ///
    /// - Parameters:
    ///   - chunk: the leased chunk.
    ///   - nowMs: now, ms since 1970.
    ///   - error: why a provider stopped the chunk (kept as the campaign's `last_error`), if it did.
    ///   - webhooks: the endpoints the campaign's end is reported to when this release finishes
    ///     it (`campaign.finished`, in the same transaction); `nil`: none.
    ///   - hold: when the campaign may be claimed again (its budget for this second is spent, or
    ///     a provider stopped it).
    /// - Throws: `RichPushError` `store`.
    func releaseCampaignChunk(_ chunk: CampaignChunk, nowMs: Int, error: String?, webhooks: WebhookSettings?, hold: CampaignHold) throws

    /// Takes up to `wanted` sends from the campaign's budget for the current second (the
    /// per-minute throttle spread over the seconds of the minute, shared by every instance).
    ///
    /// - Parameters:
    ///   - campaignID: the campaign.
    ///   - perMinute: its throttle.
    ///   - nowMs: now, ms since 1970.
    ///   - wanted: how many sends the worker would make now.
    /// - Returns: how many it may make now (0…wanted).
    /// - Throws: `RichPushError` `store`.
    func reserveCampaignBudget(campaignID: String, perMinute: Int, nowMs: Int, wanted: Int) throws -> Int

    /// Deletes up to `limit` per-token target rows (`campaign_targets`) of one campaign that was
    /// finished or cancelled before `finishedBeforeMs`, in one short transaction; the campaign's
    /// row and counters stay (`GET /v1/campaigns/{id}` answers as before). Idle (nothing due):
    /// a read, no write.
    ///
    /// - Parameters:
    ///   - finishedBeforeMs: campaigns that ended before this, ms since 1970.
    ///   - limit: the most rows to delete (the batch bound: a lock is held only this long).
    /// - Returns: the rows deleted; 0 when nothing is due.
    /// - Throws: `RichPushError` `store`.
    func purgeCampaignTargets(finishedBeforeMs: Int, limit: Int) throws -> Int

    /// When an idle worker must look again without a change: the earliest of a scheduled
    /// campaign's `send_at`, a running campaign's leased chunk's lease end (a takeover), a held-off
    /// campaign's `next_claim_ms`, and a test's end; in ms from now (0 when already due), `nil`
    /// when there is none.
    ///
    /// - Parameter nowMs: now, ms since 1970.
    /// - Returns: the wait, ms.
    /// - Throws: `RichPushError` `store`.
    func nextCampaignTimer(nowMs: Int) throws -> Int?
}

/// When a released campaign may be claimed again.
public enum CampaignHold: Sendable, Equatable {
    /// At once.
    case none
    /// At the next second (its budget for this second is spent): the database's second.
    case nextSecond
    /// After this many ms (a provider stopped it).
    case milliseconds(Int)
}

extension CampaignStore {
    /// `createCampaign(_:webhooks:)` without webhooks.
    ///
    /// - Parameter draft: the campaign.
    /// - Returns: the stored campaign and whether it was created.
    /// - Throws: `RichPushError` `store`.
    public func createCampaign(_ draft: CampaignDraft) throws -> (campaign: CampaignRecord, created: Bool) {
        try createCampaign(draft, webhooks: nil)
    }

    /// `cancelCampaign(_:atMs:webhooks:)` without webhooks.
    ///
    /// - Parameters:
    ///   - id: the campaign id.
    ///   - atMs: now, ms since 1970.
    /// - Returns: the campaign after the change, `nil` when unknown.
    /// - Throws: `RichPushError` `store`.
    public func cancelCampaign(_ id: String, atMs: Int) throws -> CampaignRecord? { try cancelCampaign(id, atMs: atMs, webhooks: nil) }

    /// `recordCampaignResults(_:results:funnel:)` without a funnel record.
    ///
    /// - Parameters:
    ///   - chunk: the chunk the targets belong to.
    ///   - results: the results.
    /// - Throws: `RichPushError` `store`.
    public func recordCampaignResults(_ chunk: CampaignChunk, results: [CampaignTargetResult]) throws {
        try recordCampaignResults(chunk, results: results, funnel: nil)
    }

    /// `advanceCampaigns(nowMs:webhooks:)` without webhooks.
    ///
    /// - Parameter nowMs: now, ms since 1970.
    /// - Throws: `RichPushError` `store`.
    public func advanceCampaigns(nowMs: Int) throws { try advanceCampaigns(nowMs: nowMs, webhooks: nil) }

    /// `releaseCampaignChunk(_:nowMs:error:webhooks:)` without webhooks.
    ///
    /// - Parameters:
    ///   - chunk: the leased chunk.
    ///   - nowMs: now, ms since 1970.
    ///   - error: why a provider stopped the chunk, if it did.
    /// - Throws: `RichPushError` `store`.
    public func releaseCampaignChunk(_ chunk: CampaignChunk, nowMs: Int, error: String?) throws {
        try releaseCampaignChunk(chunk, nowMs: nowMs, error: error, webhooks: nil, hold: .none)
    }

    /// `releaseCampaignChunk(_:nowMs:error:webhooks:hold:)` without a hold-off.
    ///
    /// - Parameters:
    ///   - chunk: the leased chunk.
    ///   - nowMs: now, ms since 1970.
    ///   - error: why a provider stopped the chunk, if it did.
    ///   - webhooks: the endpoints the campaign's end is reported to, `nil` for none.
    /// - Throws: `RichPushError` `store`.
    public func releaseCampaignChunk(_ chunk: CampaignChunk, nowMs: Int, error: String?, webhooks: WebhookSettings?) throws {
        try releaseCampaignChunk(chunk, nowMs: nowMs, error: error, webhooks: webhooks, hold: .none)
    }

    /// The sends the throttle allows in UNIX second `second`: the seconds of a minute share
    /// `perMinute` so that any 60 consecutive seconds allow exactly `perMinute`.
    ///
    /// - Parameters:
    ///   - perMinute: the throttle.
    ///   - second: seconds since 1970.
    /// - Returns: the allowance.
    public static func allowance(perMinute: Int, second: Int) -> Int {
        let inMinute = second % 60
        return (inMinute + 1) * perMinute / 60 - inMinute * perMinute / 60
    }
}
