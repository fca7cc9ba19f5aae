import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushProvider

/// The sender workers of one `serve` instance: each leases a chunk of a running campaign from
/// the store, sends it through the server's provider clients, records every result, releases
/// the chunk, and looks for the next one.
///
/// Per chunk: tokens a provider called inactive or bad (or the app deleted), and not registered
/// again since, are recorded `skipped` and never sent — so tokens found inactive by an earlier
/// chunk are skipped by later ones. The rest go in batches: with `per_minute`, each batch is what
/// the campaign's budget for the current second allows (kept in the store, shared by every
/// instance). Before a batch is handed to APNs/FCM its tokens are marked in flight and the lease
/// renewed, in one commit; after, each result is recorded together with the push's funnel
/// record of the batch (one commit: the funnel shows sent/accepted as for a `POST /v1/pushes`
/// send, each token once). Every send carries the campaign's collapse id (`apns-collapse-id`;
/// through FCM also `android.collapse_key`).
///
/// Stopping (`stop`, on SIGTERM): no new chunk is claimed; the chunk in hand is finished (a
/// throttled one waiting for budget is released instead, its unsent targets still pending).
final class CampaignWorkers: Sendable {
    /// Where sends are recorded and skipped tokens looked up.
    let store: any ReceiptStore
    /// The store's campaigns (`store.campaignStore()`).
    let campaigns: any CampaignStore
    let sender: PushSender
    let settings: CampaignSettings
    /// Where the end of a campaign is reported (`campaign.finished`), `nil` without webhooks.
    let webhooks: WebhookSettings?
    private let instance = String(UUID().uuidString.lowercased().prefix(8))
    private let stopping = Locked(false)
    private let alive = Locked(0)
    private let queue = BlockingQueue(label: "richpush.campaigns.workers", concurrent: true)
    private let log: @Sendable (String) -> Void

    /// - Parameters:
    ///   - store: the server's store.
    ///   - campaigns: its campaigns.
    ///   - sender: the provider clients.
    ///   - settings: workers, lease, poll interval.
    ///   - webhooks: the endpoints `campaign.finished` is written for (in the finishing transaction).
    ///   - log: where failures go (standard error).
    init(
        store: any ReceiptStore, campaigns: any CampaignStore, sender: PushSender, settings: CampaignSettings, webhooks: WebhookSettings? = nil,
        log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) {
        self.store = store
        self.campaigns = campaigns
        self.sender = sender
        self.settings = settings
        self.webhooks = webhooks
        self.log = log
    }

    private var leaseMs: Int { max(100, Int(settings.leaseSeconds * 1000)) }
    private var isStopping: Bool { stopping.withLock { $0 } }

    /// Starts `settings.workers` workers, and the purge of finished campaigns' targets.
    func start() {
        for worker in 0..<settings.workers {
            alive.withLock { $0 += 1 }
            Task.detached { [self] in
                await self.loop(worker)
                self.alive.withLock { $0 -= 1 }
            }
        }
        guard settings.targetsRetentionDays > 0 else { return }
        alive.withLock { $0 += 1 }
        Task.detached { [self] in
            await self.purgeLoop()
            self.alive.withLock { $0 -= 1 }
        }
    }

    /// Every `purgeIntervalMs` (and at start): deletes the targets of campaigns that ended more
    /// than `targetsRetentionDays` ago, `purgeBatch` rows per transaction, until none is left.
    private func purgeLoop() async {
        let campaigns = self.campaigns
        let batch = max(1, settings.purgeBatch)
        while !isStopping {
            let bound = Self.nowMs() - settings.targetsRetentionDays * 86_400_000
            var deleted = 0
            do {
                while !isStopping {
                    let rows = try await onStore { try campaigns.purgeCampaignTargets(finishedBeforeMs: bound, limit: batch) }
                    if rows == 0 { break }
                    deleted += rows
                    // Between batches, receipts and sends take the write lock.
                    await pause(ms: 10)
                }
            } catch {
                log("richpush serve: campaign targets purge: \((error as? RichPushError)?.message ?? "\(error)"); trying again in an hour")
            }
            if deleted > 0 { log("richpush serve: deleted \(deleted) targets of campaigns finished over \(settings.targetsRetentionDays) days ago") }
            await pause(ms: settings.purgeIntervalMs)
        }
    }

    /// Stops claiming chunks and waits (up to `grace` seconds) for the chunks in hand.
    ///
    /// - Parameter grace: the longest wait, seconds.
    func stop(grace: Double) {
        stopping.withLock { $0 = true }
        let end = Date().addingTimeInterval(grace)
        while alive.withLock({ $0 }) > 0 && Date() < end { Thread.sleep(forTimeInterval: 0.01) }
    }

    private func onStore<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await queue.run(work)
    }

    /// Store work that must not be lost once a batch was sent (its results, the release): tried
    /// up to 5 times, 0.5 s apart, so a lock wait or statement bound on a loaded database does
    /// not leave sent tokens in flight (to be resent by a takeover).
    private func onStoreRetrying(_ work: @escaping @Sendable () throws -> Void) async throws {
        var attempt = 0
        while true {
            do {
                return try await queue.run(work)
            } catch {
                attempt += 1
                guard attempt < 5 else { throw error }
                log("richpush serve: campaign worker: \((error as? RichPushError)?.message ?? "\(error)"); retrying")
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    private static func nowMs() -> Int { Int(Date().timeIntervalSince1970 * 1000) }

    private func pause(ms: Int) async {
        let end = Self.nowMs() + ms
        while !isStopping && Self.nowMs() < end {
            try? await Task.sleep(for: .milliseconds(min(50, max(1, end - Self.nowMs()))))
        }
    }

    private func loop(_ worker: Int) async {
        var claims = 0
        let campaigns = self.campaigns
        let leaseMs = self.leaseMs
        let webhooks = self.webhooks
        let listener = (store as? PostgresStore)?.listener
        while !isStopping {
            do {
                // Read before looking for work, so a notification that comes meanwhile is not missed.
                let generation = listener?.generation(of: PostgresListener.campaigns)
                if worker == 0 { try await onStore { try campaigns.advanceCampaigns(nowMs: Self.nowMs(), webhooks: webhooks) } }
                claims += 1
                let owner = "\(instance)-\(worker)-\(claims)"
                guard let chunk = try await onStore({ try campaigns.claimCampaignChunk(owner: owner, nowMs: Self.nowMs(), leaseMs: leaseMs) }) else {
                    if let listener, let generation {
                        await idle(listener, generation: generation)
                    } else {
                        await pause(ms: settings.pollMs)
                    }
                    continue
                }
                if let stop = try await run(chunk) {
                    log("richpush serve: campaign \(chunk.campaign.id): \(stop); its chunks wait, tried again in 5 s")
                    await pause(ms: 5_000)
                }
            } catch {
                log("richpush serve: campaign worker: \((error as? RichPushError)?.message ?? "\(error)"); trying again in 1 s")
                await pause(ms: 1_000)
            }
        }
    }

    /// An idle worker on PostgreSQL: waits for a notification (a campaign created or started, a
    /// chunk handed back), the next timer (a scheduled campaign's `send_at`, a leased chunk's
    /// lease end: a takeover), or `notifiedPollMs` (the fallback poll), whichever comes first.
    private func idle(_ listener: PostgresListener, generation: Int) async {
        var timeout = settings.notifiedPollMs
        if let store = store as? PostgresStore, let next = try? await onStore({ try store.nextCampaignTimerMs() }) {
            timeout = max(settings.pollMs / 5, min(timeout, next - Self.nowMs() + 1))
        }
        _ = await listener.wait(for: PostgresListener.campaigns, sinceGeneration: generation, timeoutMs: timeout) { [self] in self.isStopping }
    }

    /// Sends one leased chunk; returns why a provider stopped it (configuration), if it did.
    private func run(_ chunk: CampaignChunk) async throws -> String? {
        let store = self.store
        let campaigns = self.campaigns
        let webhooks = self.webhooks
        let leaseMs = self.leaseMs
        let campaign = chunk.campaign
        var notification = APNsNotification(payload: Data(campaign.payload.utf8), topic: campaign.topic)
        notification.pushType = APNsPushType(rawValue: campaign.pushType)
        notification.priority = campaign.priority.map { APNsPriority(rawValue: $0) }
        notification.expiration = campaign.expiration.map { Date(timeIntervalSince1970: Double($0)) }
        notification.collapseID = campaign.collapseID

        var remaining = chunk.targets
        // Known inactive, bad or deleted: recorded skipped, never sent.
        let tokens = remaining.map(\.token)
        let skips = try await onStore { try store.skippedTokens(among: tokens) }
        if !skips.isEmpty {
            let skipped = remaining.filter { skips[$0.token] != nil }
            let results = skipped.map {
                let reason = skips[$0.token]?.reason, outcome = PushOutcome.skipped.rawValue
                return CampaignTargetResult(
                    token: $0.token, outcome: outcome, status: nil, reason: reason, provider: $0.provider,
                    send: PushSendRecord.TokenResult(deviceToken: $0.token, status: nil, reason: reason, outcome: outcome))
            }
            let funnel = CampaignFunnelBatch(name: "skipped", sentAtMs: Self.nowMs())
            try await onStore { try campaigns.recordCampaignResults(chunk, results: results, funnel: funnel) }
            remaining.removeAll { skips[$0.token] != nil }
        }
        var batchNumber = 0
        while !remaining.isEmpty {
            var count = remaining.count
            if let perMinute = campaign.perMinute {
                let wanted = remaining.count
                count = try await onStore {
                    try campaigns.reserveCampaignBudget(campaignID: campaign.id, perMinute: perMinute, nowMs: Self.nowMs(), wanted: wanted)
                }
                if count == 0 {
                    let renewed = try await onStore { try campaigns.markCampaignTargetsInFlight(chunk, tokens: [], nowMs: Self.nowMs(), leaseMs: leaseMs) }
                    if renewed == nil || isStopping { break }
                    // The next second's budget.
                    await pause(ms: 1_000 - Self.nowMs() % 1_000)
                    continue
                }
            }
            let candidates = Array(remaining.prefix(count))
            remaining.removeFirst(count)
            let candidateTokens = candidates.map(\.token)
            // Cancelled, or the lease was taken over: give the chunk up.
            guard
                let marked = try await onStore({
                    try campaigns.markCampaignTargetsInFlight(chunk, tokens: candidateTokens, nowMs: Self.nowMs(), leaseMs: leaseMs)
                })
            else { break }
            // A token a former lease holder recorded meanwhile is not sent again.
            let markedSet = Set(marked)
            let batch = candidates.filter { markedSet.contains($0.token) }
            batchNumber += 1
            // The lease is renewed while the batch is with the provider (every third of the
            // lease), so a batch slower than the lease is not taken over and sent twice.
            let heartbeat = Task.detached { [queue] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(max(50, leaseMs / 3)))
                    if Task.isCancelled { break }
                    _ = try? await queue.run { try campaigns.markCampaignTargetsInFlight(chunk, tokens: [], nowMs: Self.nowMs(), leaseMs: leaseMs) }
                }
            }
            defer { heartbeat.cancel() }
            var results: [CampaignTargetResult] = []
            var stop: String?
            for provider in PushProvider.allCases {
                let tokens = batch.filter { $0.provider == provider.rawValue }.map(\.token)
                guard !tokens.isEmpty else { continue }
                guard let client = sender.client(for: provider) else {
                    results += tokens.map {
                        CampaignTargetResult(
                            token: $0, outcome: PushOutcome.configurationError.rawValue, status: nil, reason: "\(provider.rawValue)_not_configured")
                    }
                    continue
                }
                // A thrown error (the transport gave up): which tokens were handed over is not
                // known, so they stay in flight and whoever takes the chunk over resends them.
                let (answers, summary) = try await client.sendInOrder(notification, to: tokens)
                for answer in answers {
                    results.append(
                        CampaignTargetResult(
                            token: answer.deviceToken, outcome: answer.outcome.rawValue, status: answer.status, reason: answer.reasonCode,
                            provider: provider.rawValue, send: answer.outcome == .notSent ? nil : PushSender.tokenResult(answer)))
                }
                if let stopped = summary.stoppedBy { stop = "\(provider.displayName) refused the server's settings: \(stopped.message)" }
            }
            // The results and the push's funnel in one commit: a token a takeover already
            // recorded is counted in neither again.
            let recorded = results, funnel = CampaignFunnelBatch(name: String(batchNumber), sentAtMs: Self.nowMs())
            try await onStoreRetrying { try campaigns.recordCampaignResults(chunk, results: recorded, funnel: funnel) }
            if let stop {
                try await onStoreRetrying { try campaigns.releaseCampaignChunk(chunk, nowMs: Self.nowMs(), error: stop, webhooks: webhooks) }
                return stop
            }
        }
        try await onStoreRetrying { try campaigns.releaseCampaignChunk(chunk, nowMs: Self.nowMs(), error: nil, webhooks: webhooks) }
        return nil
    }
}
