import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushProvider

/// Delivers the outbox: one loop per endpoint claims due deliveries (with a lease, one per
/// subject), POSTs them signed (`WebhookSignature`) through libcurl, and records each outcome:
/// 2xx = delivered; anything else (another status — a 3xx too: redirects are not followed —, a
/// refused connection, the timeout) = retried after an exponential, jittered wait, and given up
/// once the event is older than the give-up time.
///
/// Store work runs on a queue of its own (never on Swift's pool), the HTTP requests on the
/// transport's thread: a slow or dead receiver holds neither receipts nor sends. While every
/// attempt to an endpoint fails, its loop sends one request at a time, at most one a second, so
/// a backlog does not hammer a receiver that is down. The receiver's URL is the operator's: it
/// may be a private or loopback address (no SSRF guard applies, unlike media URLs).
public final class WebhookDispatcher: Sendable {
    /// The endpoints and timing.
    public let settings: WebhookSettings
    /// This instance's delivery counters.
    public let metrics = WebhookMetrics()
    /// This instance's lease owner id (`inst-` + 16 hex digits).
    public let owner: String
    private let store: any WebhookOutboxStore
    private let transport: any HTTPTransport
    private let queue = BlockingQueue(label: "richpush.webhooks.store", concurrent: true)
    private let loops = Locked<[Task<Void, Never>]>([])
    private let running = Locked(0)
    /// Connections to the receivers (each with a libcurl thread): HTTP/1.1 receivers get this
    /// many requests at once, HTTP/2 ones up to `concurrency` streams.
    static let connections = 4
    private let cachedStatus = Locked<(atMs: Int, status: [String: WebhookEndpointStatus])?>(nil)

    /// Makes a dispatcher (nothing runs before `start()`).
    ///
    /// - Parameters:
    ///   - settings: the endpoints and timing.
    ///   - store: the outbox.
    ///   - transport: the HTTP client; default libcurl (HTTP/1.1 or HTTP/2 by ALPN, no redirects).
    /// - Throws: `RichPushError` `transport` when libcurl cannot start.
    public init(settings: WebhookSettings, store: any WebhookOutboxStore, transport: (any HTTPTransport)? = nil) throws {
        self.settings = settings
        self.store = store
        owner = "inst-" + String(WebhookEvent.newID().dropFirst(4).prefix(16))
        if let transport {
            self.transport = transport
        } else {
            var configuration = TransportConfiguration()
            configuration.connectTimeout = min(settings.timeoutSeconds, 10)
            configuration.requestTimeout = settings.timeoutSeconds
            configuration.maxConcurrentStreams = max(1, settings.concurrency)
            configuration.maximumResponseBodyBytes = 4_096
            #if canImport(CCurl) && os(Linux)
            // Several connections of one transfer each (libcurl waits to multiplex on one
            // connection, which over HTTP/1.1 means one request at a time).
            self.transport = try ConnectionPoolTransport(configuration: configuration, connections: Self.connections)
            #else
            throw RichPushError(code: .unsupported, message: "webhook delivery needs libcurl (Linux)")
            #endif
        }
    }

    /// Starts one delivery loop per endpoint.
    public func start() {
        let tasks = settings.endpoints.enumerated().map { index, endpoint in
            Task.detached { [self] in await self.run(endpoint, prunes: index == 0) }
        }
        loops.withLock { $0 += tasks }
    }

    /// Stops the loops: requests in flight are cut (their connections closed, so a receiver that
    /// hangs does not hold the shutdown) and recorded as failed attempts, to be sent again after a
    /// restart (same event id); waits up to `grace` seconds for that. Blocks the caller.
    ///
    /// - Parameter grace: the longest wait, seconds.
    public func stop(grace: Double) {
        let tasks = loops.withLock { loops in
            defer { loops = [] }
            return loops
        }
        for task in tasks { task.cancel() }
        transport.shutdown()
        let end = Date().addingTimeInterval(grace)
        while running.withLock({ $0 }) > 0 && Date() < end { Thread.sleep(forTimeInterval: 0.01) }
    }

    /// The outbox's figures per endpoint key, read at most once a second (the dashboard and
    /// `/metrics` are open to polling).
    ///
    /// - Returns: the figures, or `nil` when the store cannot be read.
    func status() async -> [String: WebhookEndpointStatus]? {
        let now = Self.nowMs
        if let cached = cachedStatus.withLock({ $0 }), now - cached.atMs < 1_000 { return cached.status }
        let store = self.store
        guard let status = try? await queue.run({ try store.webhookStatus() }) else { return nil }
        cachedStatus.withLock { $0 = (now, status) }
        return status
    }

    /// `/metrics`' webhook lines.
    ///
    /// - Returns: the Prometheus text.
    func renderMetrics() async -> String {
        metrics.render(settings.endpoints, status: await status(), nowMs: Self.nowMs)
    }

    private func run(_ endpoint: WebhookEndpoint, prunes: Bool) async {
        running.withLock { $0 += 1 }
        defer { running.withLock { $0 -= 1 } }
        let store = self.store, owner = self.owner, key = endpoint.key, settings = self.settings
        let leaseMs = Int((settings.timeoutSeconds * 2 + 30) * 1000)
        var failing = false
        var prunedAtMs = 0
        let listener = (store as? PostgresStore)?.listener
        while !Task.isCancelled {
            // Read before the claim, so an event written meanwhile wakes the wait below.
            let generation = listener?.generation(of: PostgresListener.webhooks)
            let now = Self.nowMs
            if prunes, now - prunedAtMs > 3_600_000 {
                prunedAtMs = now
                let bound = now - Int(settings.failedRetentionSeconds * 1000)
                _ = try? await queue.run { try store.pruneWebhooks(failedBeforeMs: bound) }
            }
            let limit = failing ? 1 : max(1, settings.concurrency)
            let claims: [WebhookClaim]
            do {
                claims = try await queue.run { try store.claimWebhooks(endpoint: key, owner: owner, nowMs: now, leaseMs: leaseMs, limit: limit) }
            } catch {
                metrics.storeFailed()
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            if claims.isEmpty {
                if let listener, let generation {
                    // PostgreSQL: a new event wakes the loop at once (NOTIFY); retries and
                    // leases that ran out are seen by the slow poll.
                    let timeoutMs = Int(settings.notifiedPollSeconds * 1000)
                    _ = await listener.wait(for: PostgresListener.webhooks, sinceGeneration: generation, timeoutMs: timeoutMs) { Task.isCancelled }
                } else {
                    try? await Task.sleep(for: .seconds(settings.pollSeconds))
                }
                continue
            }
            let attempts = await deliver(claims, to: endpoint)
            // A store that is busy for a moment (a lock held by another instance) gets two more
            // tries; if none records the outcomes, the lease runs out and the deliveries are
            // attempted again (at least once, never lost).
            for delayMs in [0, 200, 1_000] {
                if delayMs > 0 { try? await Task.sleep(for: .milliseconds(delayMs)) }
                do {
                    try await queue.run { try store.finishWebhooks(attempts, endpoint: key, owner: owner) }
                    break
                } catch {
                    metrics.storeFailed()
                }
            }
            metrics.record(attempts, endpoint: key)
            failing = !attempts.contains { $0.outcome == .delivered }
            if failing { try? await Task.sleep(for: .seconds(min(1, settings.retryBaseSeconds))) }
        }
    }

    /// POSTs the claims (each of another subject) at once and judges each answer.
    private func deliver(_ claims: [WebhookClaim], to endpoint: WebhookEndpoint) async -> [WebhookAttempt] {
        let timestamp = Self.nowMs / 1000
        var requests: [TransportRequest] = []
        var signed: [Bool] = []
        for claim in claims {
            let signature = try? WebhookSignature.header(body: claim.body, secret: endpoint.secret, timestamp: timestamp)
            signed.append(signature != nil)
            requests.append(
                TransportRequest(
                    method: "POST", url: endpoint.url,
                    headers: [
                        ("Content-Type", "application/json"), ("User-Agent", "RichPush-Webhooks/1"),
                        (WebhookSignature.headerName, signature ?? ""), ("RichPush-Event-Id", claim.eventID),
                        ("RichPush-Event-Type", claim.type.rawValue), ("RichPush-Delivery-Attempt", String(claim.attempts)),
                    ],
                    body: claim.body))
        }
        let results = await transport.send(batch: requests)
        let now = Self.nowMs
        return zip(claims, zip(results, signed)).map { claim, pair in
            let (result, wasSigned) = pair
            guard wasSigned else { return judge(claim, status: nil, error: "could not sign the event (libcrypto failed)", nowMs: now) }
            switch result {
            case .success(let response) where (200..<300).contains(response.status):
                return WebhookAttempt(seq: claim.seq, outcome: .delivered, status: response.status, error: nil, atMs: now)
            case .success(let response):
                return judge(claim, status: response.status, error: Self.describe(response), nowMs: now)
            case .failure(let error):
                let message = (error as? RichPushError)?.message ?? String(describing: error)
                return judge(claim, status: nil, error: "no answer: " + String(message.prefix(300)), nowMs: now)
            }
        }
    }

    /// A failed attempt: retried after the backoff, never later than the give-up time, and given
    /// up once that time has come.
    func judge(_ claim: WebhookClaim, status: Int?, error: String, nowMs: Int) -> WebhookAttempt {
        let deadline = claim.createdAtMs + Int(settings.giveUpSeconds * 1000)
        if nowMs >= deadline {
            return WebhookAttempt(
                seq: claim.seq, outcome: .gaveUp, status: status,
                error: error + " (given up after \(claim.attempts) attempts over \(settings.giveUpText))",
                atMs: nowMs)
        }
        let next = min(deadline, nowMs + Int(settings.retryDelay(afterAttempt: claim.attempts) * 1000))
        return WebhookAttempt(seq: claim.seq, outcome: .retry(nextAttemptMs: next), status: status, error: error, atMs: nowMs)
    }

    /// `HTTP 503: <excerpt>`, or for a 3xx the redirect that was not followed.
    static func describe(_ response: TransportResponse) -> String {
        if (300..<400).contains(response.status) {
            let location = response.headers["location"].map { " to \(String($0.prefix(200)))" } ?? ""
            return "HTTP \(response.status): redirect\(location) not followed (give the final URL in --webhook-url)"
        }
        let text = String(decoding: response.body.prefix(200), as: UTF8.self)
            .unicodeScalars.map { $0.properties.generalCategory == .control ? " " : String($0) }.joined()
            .trimmingCharacters(in: .whitespaces)
        return "HTTP \(response.status)" + (text.isEmpty ? "" : ": " + text)
    }

    static var nowMs: Int { Int(Date().timeIntervalSince1970 * 1000) }
}
