import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushMedia

/// The statistics server: receipts in (`POST /v1/receipts`), figures out (`GET /v1/pushes`,
/// the dashboard at `/`), plus `/healthz` and `/metrics`.
///
/// Routes:
/// - `POST /v1/receipts` (open): form or JSON receipt → `202` after COMMIT, `400` naming the
///   field (ids must be printable: `IdentifierRule`), `415` for another body type (multipart, XML,
///   JSON sent as a form), `413` over 8 KB, `503` when the store failed.
/// - `POST /v1/pushes` (admin, `application/json`): lint, send through APNs or FCM to the given
///   tokens and to the devices of the given `user_ids`, skipping tokens known inactive or bad;
///   record `sent` / `accepted` / `skipped` and each token's outcome; 200 with per-token results,
///   400 naming the field or with the lint findings, 413 over 10,000 tokens or 1 MB, 502 when a
///   provider refused the server's key/team/topic/service account, 503 without settings for the
///   provider needed.
/// - `POST /v1/pushes/{push_id}/sends` (admin, Bearer only): record the sends of a push another
///   system sent (counts or per-token outcomes), idempotent per `batch_id`; 200, 409 for a
///   `batch_id` recorded with other figures.
/// - `POST /v1/devices` (open to apps; a `user_id` needs the admin Bearer token or a valid
///   `user_hash`), `DELETE /v1/devices/{token}` (open: whoever holds the token): the token lifecycle.
/// - `GET /v1/pushes` (admin): a page of JSON figures (`limit`, `prefix`, `from`, `to`, `after`,
///   `before`); `GET /v1/pushes/{push_id}` (admin): one push.
/// - `GET /` (admin, Bearer or session cookie): the dashboard (paging, push-id search, date
///   range); `GET /pushes/{push_id}`: one push's page; `GET /login`, `POST /login` (a 12 h session
///   in memory, the cookie holds its random id, never the token), `POST /logout`.
/// - `POST /v1/campaigns`, `GET /v1/campaigns`, `GET /v1/campaigns/{id}`, `POST
///   /v1/campaigns/{id}/cancel` (admin): durable sends to an audience (`Campaigns/`), sent by this
///   instance's `CampaignWorkers` and those of every instance on the same database.
/// - `GET /healthz` (open): `200 {"status":"ok"}`, or `503 {"status":"unavailable","reason":…}`
///   while the store's database is unreachable (PostgreSQL); `GET /metrics` (open);
///   `GET /openapi.yaml` (open): the API's OpenAPI document (`OpenAPIDocument`).
///
/// Every request is judged from its line and headers before its body is read (`Admission`):
/// framing (`Content-Length` / `Transfer-Encoding`), the busy threshold, the route and method,
/// the admin token or session (with the per-address throttle on wrong tokens), the same-origin
/// rule for cookie-authenticated changes, the content type, and the endpoint's body bound. Each
/// route's behaviour is an `Endpoint` in its feature folder; this type holds the route table and
/// the lifecycle.
// @unchecked: `http` is set once in init; `stopped` is behind a Locked
public final class StatisticsServer: @unchecked Sendable {
    /// The store behind the server.
    public let store: any ReceiptStore & StatisticsStore
    /// The counters behind `/metrics`.
    public let metrics = ServerMetrics()
    private let configuration: ServerConfiguration
    private let writer: ReceiptWriter
    private let sender: PushSender?
    private let webhooks: WebhookDispatcher?
    /// The media workers (with the media edge).
    private let mediaWorkers: MediaWorkerPool?
    /// The campaign workers (with a provider configured and a store that keeps campaigns).
    private let campaignWorkers: CampaignWorkers?
    /// Admission and the endpoints: what every request goes through.
    let router: ServerRouter
    private var http: HTTPServer?
    private let stopped = Locked(false)

    /// The bound port (0 when not listening).
    public var port: Int { http?.port ?? 0 }

    /// The Firebase project FCM sends go to, when FCM is configured.
    public var fcmProjectID: String? { sender?.fcmProjectID }

    /// Starts the writer thread and the HTTP server.
    ///
    /// - Parameters:
    ///   - configuration: host, port, token, limits, bounds.
    ///   - store: where receipts go.
    ///   - listening: `false` opens no socket: requests are answered in process by `handle(_:)`
    ///     (tests), through the same admission and endpoints.
    /// - Throws: `RichPushError` `listen` when the address cannot be bound; `invalid_key`, `io`
    ///   when the APNs key or CA file cannot be read.
    public init(configuration: ServerConfiguration, store: any ReceiptStore & StatisticsStore, listening: Bool = true) throws {
        self.configuration = configuration
        self.store = store
        if configuration.apns != nil || configuration.fcm != nil {
            self.sender = try PushSender(
                settings: configuration.apns, fcm: configuration.fcm, apnsMissing: configuration.apnsMissing, names: configuration.pushSettingNames,
                store: store, webhooks: configuration.webhooks)
        } else {
            self.sender = nil
        }
        do {
            webhooks = try Self.webhookDispatcher(configuration, store: store)
        } catch {
            sender?.shutdown()
            throw error
        }
        let metrics = self.metrics
        let writer = ReceiptWriter(store: store, maximumBatch: configuration.maximumBatch, linger: configuration.commitLinger) {
            metrics.batchCommitted(size: $0)
        }
        self.writer = writer
        // Conversions run in worker processes, started now so that a binary that cannot be one
        // is an error at start, not at the first push.
        if configuration.mediaEdge != nil {
            let pool = MediaWorkerPool(optimizer: configuration.mediaCheck.optimizer, settings: configuration.mediaCheck.workers)
            do throws(MediaOptimizeError) {
                try pool.prepare()
            } catch {
                sender?.shutdown()
                webhooks?.stop(grace: 0)
                throw RichPushError(code: .configuration, message: "the media edge's workers cannot start: \(error.message)")
            }
            mediaWorkers = pool
        } else {
            mediaWorkers = nil
        }
        let context = ServerContext(configuration: configuration, store: store, metrics: metrics, webhooks: webhooks, mediaWorkers: mediaWorkers)
        // A store that keeps no campaigns (a test's) runs no workers; its campaign routes answer 501.
        if let sender, configuration.campaigns.workers > 0, let campaigns = try? store.campaignStore() {
            campaignWorkers = CampaignWorkers(
                store: store, campaigns: campaigns, sender: sender, settings: configuration.campaigns, webhooks: configuration.webhooks)
        } else {
            campaignWorkers = nil
        }
        router = ServerRouter(
            admission: Admission(
                context: context,
                routes: Self.routes(context, writer: writer, sender: sender).adding(MediaEdge.routes(context)).adding(
                    Self.campaignRoutes(context, sender: sender))))
        webhooks?.start()
        guard listening else {
            campaignWorkers?.start()
            return
        }
        do {
            let router = self.router
            let http = try HTTPServer(
                host: configuration.host, port: configuration.port, threads: configuration.threads, limits: configuration.limits,
                observe: { metrics.observe(status: $0, seconds: $1) }, gate: { router.gate($0) }, handler: { await router.respond($0) })
            self.http = http
            metrics.connections { [weak http] in
                guard let http else { return (0, 0, 0) }
                let closed = http.closedSlowClients
                return (http.openConnections, closed.headers, closed.bodies)
            }
        } catch {
            writer.stop()
            sender?.shutdown()
            webhooks?.stop(grace: 0)
            mediaWorkers?.shutdown()
            throw error
        }
        campaignWorkers?.start()
    }

    /// The outbox's deliverer when webhooks are configured (the store must keep an outbox:
    /// `store_unsupported` otherwise).
    private static func webhookDispatcher(_ configuration: ServerConfiguration, store: any ReceiptStore & StatisticsStore) throws -> WebhookDispatcher? {
        guard let settings = configuration.webhooks, !settings.endpoints.isEmpty else { return nil }
        return try WebhookDispatcher(settings: settings, store: try store.webhookOutbox())
    }

    /// The route table: each path with its endpoint per method, matched in order.
    private static func routes(_ context: ServerContext, writer: ReceiptWriter, sender: PushSender?) -> RouteTable {
        RouteTable(routes: [
            .init(pattern: .exact(["/v1/receipts"]), endpoints: [("POST", ReceiptEndpoint(context: context, writer: writer, log: StoreErrorLog()))]),
            .init(pattern: .exact(["/healthz"]), endpoints: [("GET", HealthEndpoint(context: context))]),
            .init(pattern: .exact(["/metrics"]), endpoints: [("GET", MetricsEndpoint(context: context, sender: sender))]),
            .init(pattern: .exact(["/openapi.yaml"]), endpoints: [("GET", OpenAPIEndpoint())]),
            .init(pattern: .exact(["/", "/dashboard"]), endpoints: [("GET", DashboardEndpoint(context: context))]),
            .init(pattern: .exact(["/login"]), endpoints: [("GET", LoginFormEndpoint()), ("POST", LoginEndpoint(context: context))]),
            .init(pattern: .exact(["/logout"]), endpoints: [("POST", LogoutEndpoint(context: context))]),
            .init(
                pattern: .exact(["/v1/pushes"]),
                endpoints: [
                    ("GET", ListPushesEndpoint(context: context)),
                    (
                        "POST",
                        SendPushEndpoint(
                            sender: sender, apnsMissing: context.configuration.apnsMissing, names: context.configuration.pushSettingNames,
                            idempotency: IdempotentSend(context: context, scope: "POST /v1/pushes"), mediaCheck: PushMediaCheck(context: context))
                    ),
                ]),
            .init(pattern: .exact(["/v1/devices"]), endpoints: [("POST", RegisterDeviceEndpoint(context: context))]),
            .init(pattern: .enclosed("/v1/pushes/", "/sends"), endpoints: [("POST", RecordedSendEndpoint(context: context))]),
            .init(pattern: .prefix("/v1/devices/"), endpoints: [("DELETE", UnregisterDeviceEndpoint(context: context))]),
            .init(pattern: .prefix("/v1/pushes/"), endpoints: [("GET", ShowPushEndpoint(context: context))]),
            .init(pattern: .prefix("/pushes/"), endpoints: [("GET", PushPageEndpoint(context: context))]),
        ])
    }

    /// The campaign routes (`Campaigns/`).
    private static func campaignRoutes(_ context: ServerContext, sender: PushSender?) -> [RouteTable.Route] {
        [
            .init(
                pattern: .exact(["/v1/campaigns"]),
                endpoints: [
                    ("GET", ListCampaignsEndpoint(context: context)),
                    (
                        "POST",
                        CreateCampaignEndpoint(
                            context: context, sender: sender, idempotency: IdempotentSend(context: context, scope: "POST /v1/campaigns"),
                            settings: context.configuration.campaigns)
                    ),
                ]),
            .init(pattern: .enclosed("/v1/campaigns/", "/cancel"), endpoints: [("POST", CancelCampaignEndpoint(context: context))]),
            .init(pattern: .prefix("/v1/campaigns/"), endpoints: [("GET", ShowCampaignEndpoint(context: context))]),
            .init(pattern: .exact(["/campaigns"]), endpoints: [("GET", CampaignPageEndpoint(context: context))]),
            .init(pattern: .prefix("/campaigns/"), endpoints: [("GET", CampaignPageEndpoint(context: context))]),
        ]
    }

    /// Answers a request in process, without a socket: the same admission, body bound and
    /// endpoints as a request over HTTP.
    ///
    /// - Parameter request: the request with its body.
    /// - Returns: the answer.
    public func handle(_ request: ServerRequest) async -> ServerResponse {
        await router.handle(request)
    }

    /// Graceful shutdown: stop accepting, wait for requests in flight (up to the grace period),
    /// commit what is queued, stop the server and close the store. Idempotent.
    ///
    /// - Throws: `RichPushError` `store` when the final checkpoint fails (data is still committed).
    public func shutdown() throws {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        if let http {
            http.quiesce()
            let end = Date().addingTimeInterval(configuration.shutdownGrace)
            while http.inFlight > 0 && Date() < end { Thread.sleep(forTimeInterval: 0.01) }
        }
        // Campaign workers finish the chunks in hand (within the grace period) before the
        // provider connections close.
        campaignWorkers?.stop(grace: configuration.shutdownGrace)
        if let sender {
            // Sends still waiting on APNs: close the connection so they fail fast and answer.
            sender.shutdown()
            let last = Date().addingTimeInterval(configuration.shutdownGrace)
            while sender.inFlight > 0 && Date() < last { Thread.sleep(forTimeInterval: 0.01) }
        }
        writer.stop()
        webhooks?.stop(grace: configuration.shutdownGrace)
        mediaWorkers?.shutdown()
        http?.stop()
        try store.close()
    }
}
