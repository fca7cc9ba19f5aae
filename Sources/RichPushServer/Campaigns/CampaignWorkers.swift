import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushProvider

/// The sender workers of one `serve` instance, as one background service: each worker leases a
/// chunk of the running campaign whose turn it is, sends it through the server's provider
/// clients, records every result, releases the chunk, and looks for the next one.
///
/// Fair: a claim takes the highest `queue_priority` with a chunk due, and among equal priorities
/// the campaign claimed longest ago (round-robin by chunk, `CampaignStore`). A throttled campaign
/// holds no worker: once its budget for the second is spent, its chunk is released with its
/// unsent targets and the campaign is not claimable before the next second (held off in the
/// store, so on every instance); the worker takes another campaign's chunk meanwhile. A campaign
/// a provider stopped (configuration) is held off 5 s the same way.
///
/// Per chunk: tokens a provider called inactive or bad (or the app deleted), and not registered
/// again since, are recorded `skipped` and never sent. The rest go in batches: with `per_minute`,
/// each batch is what the campaign's budget for the current second allows (kept in the store,
/// shared by every instance). Before a batch is handed to APNs/FCM its tokens are marked in
/// flight and the lease renewed, in one commit; after, each result is recorded together with the
/// push's funnel record of the batch and the tokens' `token.inactive`/`token.bad` events (one
/// commit: each token once). Every send carries the campaign's collapse id (`apns-collapse-id`;
/// through FCM also `android.collapse_key`); each variant is sent with its own payload.
///
/// Idle workers wait on the store's change feed (`StoreChangeFeed`) and their next timer (a
/// `send_at`, a lease end, a held-off campaign, a test's end). Worker 0 also starts scheduled
/// campaigns, finishes completed ones and picks the winners of tests that are over
/// (`VariantRanking`).
///
/// Graceful shutdown: no new chunk is claimed; the chunk in hand is finished (a throttled one
/// stops at its second's budget and is released, its unsent targets still pending).
final class CampaignWorkers: BackgroundService {
    var name: String { "campaign workers" }
    /// Where sends are recorded, skipped tokens looked up and variants' funnels read.
    let store: any ReceiptStore & StatisticsStore
    /// The store's campaigns (`store.campaignStore()`).
    let campaigns: any CampaignStore
    let sender: PushSender
    let settings: CampaignSettings
    /// Where the end of a campaign (`campaign.finished`) and its tokens' verdicts
    /// (`token.inactive`, `token.bad`) are reported, `nil` without webhooks.
    let webhooks: WebhookSettings?
    /// The store's lanes (this service's work runs on `background`).
    let lanes: StoreLanes
    /// This instance's clock, ms since 1970.
    let clock: @Sendable () -> Int
    private let instance = String(UUID().uuidString.lowercased().prefix(8))
    private let log: @Sendable (String) -> Void
    /// How long a campaign a provider stopped is held off before it is tried again, ms.
    static let stopHoldMs = 5_000

    /// - Parameters:
    ///   - store: the server's store.
    ///   - campaigns: its campaigns.
    ///   - sender: the provider clients.
    ///   - settings: workers, lease, poll interval.
    ///   - webhooks: the endpoints `campaign.finished`, `token.inactive` and `token.bad` are
    ///     written for (in the transactions that record them).
    ///   - lanes: the store's lanes.
    ///   - clock: this instance's clock, ms since 1970.
    ///   - log: where failures go (standard error).
    init(
        store: any ReceiptStore & StatisticsStore, campaigns: any CampaignStore, sender: PushSender, settings: CampaignSettings,
        webhooks: WebhookSettings? = nil, lanes: StoreLanes, clock: @escaping @Sendable () -> Int,
        log: @escaping @Sendable (String) -> Void = ServiceGroup.standardError
    ) {
        self.store = store
        self.campaigns = campaigns
        self.sender = sender
        self.settings = settings
        self.webhooks = webhooks
        self.lanes = lanes
        self.clock = clock
        self.log = log
    }

    private var leaseMs: Int { max(100, Int(settings.leaseSeconds * 1000)) }

    /// Runs `settings.workers` workers until the shutdown.
    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<settings.workers {
                group.addTask { await self.loop(worker) }
            }
        }
    }

    private func onStore<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await lanes.run(.background, work)
    }

    /// Store work that must not be lost once a batch was sent (its results, the release): tried
    /// up to 5 times, 0.5 s apart, so a lock wait or statement bound on a loaded database does
    /// not leave sent tokens in flight (to be resent by a takeover).
    private func onStoreRetrying(_ work: @escaping @Sendable () throws -> Void) async throws {
        var attempt = 0
        while true {
            do {
                return try await onStore(work)
            } catch {
                attempt += 1
                guard attempt < 5 else { throw error }
                log("richpush serve: campaign worker: \((error as? RichPushError)?.message ?? "\(error)"); retrying")
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    private func loop(_ worker: Int) async {
        var claims = 0
        let campaigns = self.campaigns, clock = self.clock
        let leaseMs = self.leaseMs
        let feed = store.changeFeed()
        while !GracefulShutdown.isRequested {
            do {
                // Read before looking for work, so a change that comes meanwhile is not missed.
                let generation = feed.generation(of: .campaigns)
                if worker == 0 { try await advance() }
                claims += 1
                let owner = "\(instance)-\(worker)-\(claims)"
                guard let chunk = try await onStore({ try campaigns.claimCampaignChunk(owner: owner, nowMs: clock(), leaseMs: leaseMs) }) else {
                    await idle(feed, generation: generation)
                    continue
                }
                try await run(chunk)
            } catch {
                log("richpush serve: campaign worker: \((error as? RichPushError)?.message ?? "\(error)"); trying again in 1 s")
                await GracefulShutdown.sleep(milliseconds: 1_000)
            }
        }
    }

    /// Starts scheduled campaigns, finishes completed ones, and picks the winners that are due.
    private func advance() async throws {
        let campaigns = self.campaigns, webhooks = self.webhooks, clock = self.clock, store = self.store
        try await onStore { try campaigns.advanceCampaigns(nowMs: clock(), webhooks: webhooks) }
        let due = try await onStore { try campaigns.campaignsAwaitingWinner(nowMs: clock()) }
        for campaign in due {
            let funnels = try await onStore { try VariantFunnel.read(campaign, campaigns: campaigns, store: store) }
            guard let winner = VariantRanking.winner(funnels, by: VariantRanking.Metric(rawValue: campaign.winnerBy ?? "") ?? .displayToOpen)
            else { continue }
            if try await onStore({ try campaigns.setCampaignWinner(campaign.id, variant: winner.variant, nowMs: clock()) }) {
                log("richpush serve: campaign \(campaign.id): variant \(winner.variant) wins (\(winner.summary)); the rest of the audience gets it")
            }
        }
    }

    /// An idle worker: waits for a change (a campaign created or started, a chunk handed back),
    /// its next timer, or the fallback poll, whichever comes first.
    private func idle(_ feed: any StoreChangeFeed, generation: Int) async {
        guard feed.seesEveryWriter else {
            _ = await feed.wait(for: .campaigns, sinceGeneration: generation, timeoutMs: settings.pollMs)
            return
        }
        var timeout = settings.notifiedPollMs
        let campaigns = self.campaigns, clock = self.clock
        if let next = try? await onStore({ try campaigns.nextCampaignTimer(nowMs: clock()) }) {
            timeout = max(settings.pollMs / 5, min(timeout, next + 1))
        }
        _ = await feed.wait(for: .campaigns, sinceGeneration: generation, timeoutMs: timeout)
    }

    /// Sends one leased chunk (or what its campaign's budget allows this second) and releases it.
    private func run(_ chunk: CampaignChunk) async throws {
        let store = self.store, campaigns = self.campaigns, webhooks = self.webhooks, clock = self.clock
        let leaseMs = self.leaseMs
        let campaign = chunk.campaign

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
            let funnel = CampaignFunnelBatch(name: "skipped", sentAtMs: clock())
            try await onStore { try campaigns.recordCampaignResults(chunk, results: results, funnel: funnel) }
            remaining.removeAll { skips[$0.token] != nil }
        }
        var batchNumber = 0
        var hold = CampaignHold.none
        var stop: String?
        while !remaining.isEmpty {
            var count = remaining.count
            if let perMinute = campaign.perMinute {
                // Past its second's budget (or stopping): the chunk goes back, and the worker
                // takes other work until the next second.
                if GracefulShutdown.isRequested { break }
                let wanted = remaining.count
                count = try await onStore {
                    try campaigns.reserveCampaignBudget(campaignID: campaign.id, perMinute: perMinute, nowMs: clock(), wanted: wanted)
                }
                if count == 0 {
                    hold = .nextSecond
                    break
                }
            }
            let candidates = Array(remaining.prefix(count))
            remaining.removeFirst(count)
            let candidateTokens = candidates.map(\.token)
            // Cancelled, or the lease was taken over: give the chunk up.
            guard
                let marked = try await onStore({
                    try campaigns.markCampaignTargetsInFlight(chunk, tokens: candidateTokens, nowMs: clock(), leaseMs: leaseMs)
                })
            else { break }
            // A token a former lease holder recorded meanwhile is not sent again.
            let markedSet = Set(marked)
            let batch = candidates.filter { markedSet.contains($0.token) }
            batchNumber += 1
            let (results, stopped) = try await send(batch, of: chunk)
            // The results, the push's funnel and the tokens' events in one commit: a token a
            // takeover already recorded is counted in neither again.
            let recorded = results
            let funnel = CampaignFunnelBatch(name: String(batchNumber), sentAtMs: clock(), webhooks: webhooks)
            try await onStoreRetrying { try campaigns.recordCampaignResults(chunk, results: recorded, funnel: funnel) }
            if let stopped {
                stop = stopped
                hold = .milliseconds(Self.stopHoldMs)
                log("richpush serve: campaign \(campaign.id): \(stopped); its chunks wait, tried again in \(Self.stopHoldMs / 1000) s")
                break
            }
        }
        let (error, held) = (stop, hold)
        try await onStoreRetrying { try campaigns.releaseCampaignChunk(chunk, nowMs: clock(), error: error, webhooks: webhooks, hold: held) }
    }

    /// Sends a marked batch (each variant with its payload, each provider through its client)
    /// while the lease is renewed every third of it; returns the results and why a provider
    /// stopped, if one did.
    private func send(_ batch: [CampaignChunk.Target], of chunk: CampaignChunk) async throws -> ([CampaignTargetResult], String?) {
        let campaigns = self.campaigns, lanes = self.lanes, clock = self.clock, leaseMs = self.leaseMs
        // The lease is renewed while the batch is with the provider (every third of the lease),
        // so a batch slower than the lease is not taken over and sent twice.
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(max(50, leaseMs / 3)))
                if Task.isCancelled { break }
                _ = try? await lanes.run(.background) { try campaigns.markCampaignTargetsInFlight(chunk, tokens: [], nowMs: clock(), leaseMs: leaseMs) }
            }
        }
        defer { heartbeat.cancel() }
        var results: [CampaignTargetResult] = []
        var stop: String?
        // One notification per content (the campaign's, or each variant's).
        var groups: [String: [CampaignChunk.Target]] = [:]
        for target in batch { groups[chunk.content(for: target).variant ?? "", default: []].append(target) }
        for key in groups.keys.sorted() {
            guard let targets = groups[key], let first = targets.first else { continue }
            let content = chunk.content(for: first)
            var notification = APNsNotification(payload: Data(content.payload.utf8), topic: chunk.campaign.topic)
            notification.pushType = APNsPushType(rawValue: chunk.campaign.pushType)
            notification.priority = chunk.campaign.priority.map { APNsPriority(rawValue: $0) }
            notification.expiration = chunk.campaign.expiration.map { Date(timeIntervalSince1970: Double($0)) }
            notification.collapseID = chunk.campaign.collapseID
            for provider in PushProvider.allCases {
                let tokens = targets.filter { $0.provider == provider.rawValue }.map(\.token)
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
                if let stopped = summary.stoppedBy {
                    // A refusal of the settings, or a provider (or its token endpoint) that did not
                    // answer: either way the chunk waits and is tried again.
                    stop =
                        stopped.code == .providerConfiguration
                        ? "\(provider.displayName) refused the server's settings: \(stopped.message)"
                        : "\(provider.displayName) did not answer: \(stopped.message)"
                }
            }
        }
        return (results, stop)
    }
}
