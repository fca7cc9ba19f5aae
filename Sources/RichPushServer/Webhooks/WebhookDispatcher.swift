import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushProvider

/// Delivers the outbox, as a background service: one loop per endpoint claims due deliveries
/// (with a lease, one per subject), POSTs them signed (`WebhookSignature`) through that
/// endpoint's own libcurl client (`WebhookHTTPClient`), and records each outcome: 2xx =
/// delivered; anything else (another status — a 3xx too: redirects are not followed —, a refused
/// connection, the timeout) = retried after an exponential, jittered wait, and given up once the
/// event is older than the give-up time.
///
/// Each endpoint is isolated: its own connections and thread, its own loop, so a receiver that
/// hangs delays only its own deliveries (another endpoint on the same host has its own client).
/// Only a request that went out counts as an attempt; error texts name the endpoint by its
/// redacted URL (no user, password or query). Store work runs on the store's background lane,
/// never on Swift's pool. While every attempt to an endpoint fails, its loop sends one request
/// at a time, at most one a second, so a backlog does not hammer a receiver that is down. The
/// receiver's URL is the operator's: it may be a private or loopback address (no SSRF guard
/// applies, unlike media URLs).
public final class WebhookDispatcher: BackgroundService {
    public var name: String { "webhook dispatcher" }
    /// The endpoints and timing.
    public let settings: WebhookSettings
    /// This instance's delivery counters.
    public let metrics = WebhookMetrics()
    /// This instance's lease owner id (`inst-` + 16 hex digits).
    public let owner: String
    private let store: any WebhookOutboxStore
    private let feed: any StoreChangeFeed
    private let lanes: StoreLanes
    /// Connections to each receiver (HTTP/1.1 receivers get this many requests at once, HTTP/2
    /// ones up to `concurrency` streams).
    static let connections = 4
    private let cachedStatus = Locked<(atMs: Int, status: [String: WebhookEndpointStatus])?>(nil)

    /// Makes a dispatcher (nothing runs before `run()`).
    ///
    /// - Parameters:
    ///   - settings: the endpoints and timing.
    ///   - store: the outbox.
    ///   - feed: what wakes idle loops (the store's change feed).
    ///   - lanes: the store's lanes (`background`).
    public init(settings: WebhookSettings, store: any WebhookOutboxStore, feed: any StoreChangeFeed, lanes: StoreLanes) {
        self.settings = settings
        self.store = store
        self.feed = feed
        self.lanes = lanes
        owner = "inst-" + String(WebhookEvent.newID().dropFirst(4).prefix(16))
    }

    /// Runs one delivery loop per endpoint, each with its own client, until the shutdown; then
    /// the requests in flight are cut (their connections closed, so a receiver that hangs does
    /// not hold the shutdown) and recorded as failed tries, to be sent again after a restart
    /// (same event id).
    ///
    /// - Throws: `RichPushError` `transport` when libcurl cannot start.
    public func run() async throws {
        #if canImport(CCurl) && os(Linux)
        var clients: [WebhookHTTPClient] = []
        for endpoint in settings.endpoints {
            do {
                clients.append(try WebhookHTTPClient(endpoint: endpoint, timeoutSeconds: settings.timeoutSeconds, connections: Self.connections))
            } catch {
                for client in clients { await client.close() }
                throw error
            }
        }
        let pairs = Array(zip(settings.endpoints, clients))
        let all = clients
        await withTaskGroup(of: Void.self) { group in
            for (index, (endpoint, client)) in pairs.enumerated() {
                group.addTask { await self.loop(endpoint, client: client, prunes: index == 0) }
            }
            group.addTask {
                // On the shutdown: cut what is in flight, so the loops record it and return.
                while !GracefulShutdown.isRequested { await GracefulShutdown.sleep(milliseconds: 60_000) }
                for client in all { await client.close() }
            }
        }
        #else
        throw RichPushError(code: .unsupported, message: "webhook delivery needs libcurl (Linux)")
        #endif
    }

    /// The outbox's figures per endpoint key, read at most once a second (the dashboard and
    /// `/metrics` are open to polling).
    ///
    /// - Returns: the figures, or `nil` when the store cannot be read.
    func status() async -> [String: WebhookEndpointStatus]? {
        let now = Self.nowMs
        if let cached = cachedStatus.withLock({ $0 }), now - cached.atMs < 1_000 { return cached.status }
        let store = self.store
        guard let status = try? await lanes.run(.read, { try store.webhookStatus() }) else { return nil }
        cachedStatus.withLock { $0 = (now, status) }
        return status
    }

    /// `/metrics`' webhook lines.
    ///
    /// - Returns: the Prometheus text.
    func renderMetrics() async -> String {
        metrics.render(settings.endpoints, status: await status(), nowMs: Self.nowMs)
    }

    #if canImport(CCurl) && os(Linux)
    private func loop(_ endpoint: WebhookEndpoint, client: WebhookHTTPClient, prunes: Bool) async {
        let store = self.store, owner = self.owner, key = endpoint.key, settings = self.settings, lanes = self.lanes
        let leaseMs = Int((settings.timeoutSeconds * 2 + 30) * 1000)
        var failing = false
        var prunedAtMs = 0
        while !GracefulShutdown.isRequested {
            // Read before the claim, so an event written meanwhile wakes the wait below.
            let generation = feed.generation(of: .webhooks)
            let now = Self.nowMs
            if prunes, now - prunedAtMs > 3_600_000 {
                prunedAtMs = now
                let bound = now - Int(settings.failedRetentionSeconds * 1000)
                _ = try? await lanes.run(.background) { try store.pruneWebhooks(failedBeforeMs: bound) }
            }
            let limit = failing ? 1 : max(1, settings.concurrency)
            let claims: [WebhookClaim]
            do {
                claims = try await lanes.run(.background) { try store.claimWebhooks(endpoint: key, owner: owner, nowMs: now, leaseMs: leaseMs, limit: limit) }
            } catch {
                metrics.storeFailed()
                await GracefulShutdown.sleep(milliseconds: 1_000)
                continue
            }
            if claims.isEmpty {
                // A new event wakes the loop at once (the change feed: NOTIFY on PostgreSQL, in
                // process on SQLite); retries and leases that ran out are seen by the slow poll.
                let timeoutMs = Int((feed.seesEveryWriter ? settings.notifiedPollSeconds : settings.pollSeconds) * 1000)
                _ = await feed.wait(for: .webhooks, sinceGeneration: generation, timeoutMs: timeoutMs)
                continue
            }
            let attempts = await deliver(claims, to: endpoint, client: client)
            // A store that is busy for a moment (a lock held by another instance) gets two more
            // tries; if none records the outcomes, the lease runs out and the deliveries are
            // attempted again (at least once, never lost).
            for delayMs in [0, 200, 1_000] {
                if delayMs > 0 { try? await Task.sleep(for: .milliseconds(delayMs)) }
                do {
                    try await lanes.run(.background) { try store.finishWebhooks(attempts, endpoint: key, owner: owner) }
                    break
                } catch {
                    metrics.storeFailed()
                }
            }
            metrics.record(attempts, endpoint: key)
            failing = !attempts.contains { $0.outcome == .delivered }
            if failing { await GracefulShutdown.sleep(milliseconds: Int(min(1, settings.retryBaseSeconds) * 1000)) }
        }
    }

    /// POSTs the claims (each of another subject) at once and judges each answer.
    private func deliver(_ claims: [WebhookClaim], to endpoint: WebhookEndpoint, client: WebhookHTTPClient) async -> [WebhookAttempt] {
        let timestamp = Self.nowMs / 1000
        var requests: [WebhookHTTPClient.Request] = []
        var signed: [Bool] = []
        for claim in claims {
            let signature = try? WebhookSignature.header(body: claim.body, secret: endpoint.secret, timestamp: timestamp)
            signed.append(signature != nil)
            requests.append(
                WebhookHTTPClient.Request(
                    headers: [
                        ("Content-Type", "application/json"), ("User-Agent", "RichPush-Webhooks/1"),
                        (WebhookSignature.headerName, signature ?? ""), ("RichPush-Event-Id", claim.eventID),
                        ("RichPush-Event-Type", claim.type.rawValue), ("RichPush-Delivery-Attempt", String(claim.attempts + 1)),
                    ],
                    body: claim.body))
        }
        // Unsigned requests are not sent.
        let outcomes = await client.post(zip(requests, signed).filter { $0.1 }.map(\.0))
        var next = outcomes.makeIterator()
        let now = Self.nowMs
        return zip(claims, signed).map { claim, wasSigned in
            guard wasSigned, let outcome = next.next() else {
                return judge(claim, status: nil, error: "could not sign the event (libcrypto failed)", nowMs: now, sent: false)
            }
            switch outcome {
            case .answered(let status, _, _) where (200..<300).contains(status):
                return WebhookAttempt(seq: claim.seq, outcome: .delivered, status: status, error: nil, atMs: now)
            case .answered(let status, let location, let body):
                return judge(claim, status: status, error: Self.describe(status: status, location: location, body: body), nowMs: now)
            case .failed(let message, let sent):
                return judge(claim, status: nil, error: String(message.prefix(300)), nowMs: now, sent: sent)
            }
        }
    }
    #endif

    /// A failed try: retried after the backoff (by failures so far, sent or not), never later than
    /// the give-up time, and given up once that time has come.
    func judge(_ claim: WebhookClaim, status: Int?, error: String, nowMs: Int, sent: Bool = true) -> WebhookAttempt {
        let deadline = claim.createdAtMs + Int(settings.giveUpSeconds * 1000)
        if nowMs >= deadline {
            let attempts = claim.attempts + (sent ? 1 : 0)
            return WebhookAttempt(
                seq: claim.seq, outcome: .gaveUp, status: status,
                error: error + " (given up after \(attempts) attempt\(attempts == 1 ? "" : "s") over \(settings.giveUpText))",
                atMs: nowMs, sent: sent)
        }
        let next = min(deadline, nowMs + Int(settings.retryDelay(afterAttempt: claim.failures + 1) * 1000))
        return WebhookAttempt(seq: claim.seq, outcome: .retry(nextAttemptMs: next), status: status, error: error, atMs: nowMs, sent: sent)
    }

    /// `HTTP 503: <excerpt>`, or for a 3xx the redirect that was not followed (its target
    /// redacted: no user, password or query).
    static func describe(status: Int, location: String?, body: Data) -> String {
        if (300..<400).contains(status) {
            let target = location.map { " to \(String(WebhookEndpoint.redacted($0).prefix(200)))" } ?? ""
            return "HTTP \(status): redirect\(target) not followed (give the final URL in --webhook-url)"
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
            .unicodeScalars.map { $0.properties.generalCategory == .control ? " " : String($0) }.joined()
            .trimmingCharacters(in: .whitespaces)
        return "HTTP \(status)" + (text.isEmpty ? "" : ": " + text)
    }

    static var nowMs: Int { Int(Date().timeIntervalSince1970 * 1000) }
}
