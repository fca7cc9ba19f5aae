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
    /// The background services (campaign workers, the webhook dispatcher, the targets purge, the recipients retention),
    /// started and stopped together.
    public let services: ServiceGroup
    /// The store's lanes: the one door store work goes through.
    let lanes: StoreLanes
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
        let lanes = StoreLanes()
        self.lanes = lanes
        if configuration.apns != nil || configuration.fcm != nil {
            self.sender = try PushSender(
                settings: configuration.apns, fcm: configuration.fcm, apnsMissing: configuration.apnsMissing, names: configuration.pushSettingNames,
                store: store, webhooks: configuration.webhooks, lanes: lanes)
        } else {
            self.sender = nil
        }
        do {
            webhooks = try Self.webhookDispatcher(configuration, store: store, lanes: lanes)
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
                throw RichPushError(code: .configuration, message: "the media edge's workers cannot start: \(error.message)")
            }
            mediaWorkers = pool
        } else {
            mediaWorkers = nil
        }
        let context = ServerContext(
            configuration: configuration, store: store, metrics: metrics, webhooks: webhooks, mediaWorkers: mediaWorkers, lanes: lanes)
        services = ServiceGroup(services: Self.backgroundServices(configuration, store: store, sender: sender, webhooks: webhooks, lanes: lanes))
        router = ServerRouter(
            admission: Admission(
                context: context,
                routes: Self.routes(context, writer: writer, sender: sender).adding(MediaEdge.routes(context)).adding(
                    Self.campaignRoutes(context, sender: sender))))
        guard listening else {
            services.start()
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
            mediaWorkers?.shutdown()
            throw error
        }
        services.start()
    }

    /// The background services this configuration runs: the campaign workers and the targets'
    /// purge (with a provider, workers and a store that keeps campaigns; a store without runs
    /// none, and its campaign routes answer 501), the webhook dispatcher (with endpoints) and the
    /// recipients' retention. (The media edge needs none: it evicts within its bound as it stores.)
    private static func backgroundServices(
        _ configuration: ServerConfiguration, store: any ReceiptStore & StatisticsStore, sender: PushSender?, webhooks: WebhookDispatcher?,
        lanes: StoreLanes
    ) -> [any BackgroundService] {
        var services: [any BackgroundService] = []
        if let sender, configuration.campaigns.workers > 0, let campaigns = try? store.campaignStore() {
            services.append(
                CampaignWorkers(
                    store: store, campaigns: campaigns, sender: sender, settings: configuration.campaigns, webhooks: configuration.webhooks,
                    lanes: lanes, clock: configuration.clock))
            if configuration.campaigns.targetsRetentionDays > 0 {
                services.append(CampaignTargetsPurge(campaigns: campaigns, settings: configuration.campaigns, lanes: lanes, clock: configuration.clock))
            }
        }
        if let webhooks { services.append(webhooks) }
        if configuration.recipientsRetentionDays > 0, let recipients = try? store.recipientStore() {
            services.append(RecipientsRetention(store: recipients, days: configuration.recipientsRetentionDays, lanes: lanes, clock: configuration.clock))
        }
        return services
    }

    /// The outbox's deliverer when webhooks are configured (the store must keep an outbox:
    /// `store_unsupported` otherwise).
    private static func webhookDispatcher(
        _ configuration: ServerConfiguration, store: any ReceiptStore & StatisticsStore, lanes: StoreLanes
    ) throws -> WebhookDispatcher? {
        guard let settings = configuration.webhooks, !settings.endpoints.isEmpty else { return nil }
        return WebhookDispatcher(settings: settings, store: try store.webhookOutbox(), feed: store.changeFeed(), lanes: lanes)
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
            .init(pattern: .exact(["/v1/devices/batch"]), endpoints: [("POST", RegisterDevicesBatchEndpoint(context: context))]),
            .init(pattern: .enclosed("/v1/pushes/", "/sends"), endpoints: [("POST", RecordedSendEndpoint(context: context))]),
            .init(pattern: .enclosed("/v1/pushes/", "/recipients"), endpoints: [("GET", RecipientsEndpoint(context: context))]),
            .init(pattern: .enclosed("/v1/users/", "/pushes"), endpoints: [("GET", UserPushesEndpoint(context: context))]),
            .init(pattern: .prefix("/v1/users/"), endpoints: [("DELETE", EraseUserEndpoint(context: context))]),
            .init(pattern: .exact(["/v1/conversions"]), endpoints: [("POST", ConversionEndpoint(context: context))]),
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
                            settings: context.configuration.campaigns, mediaCheck: PushMediaCheck(context: context))
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
    /// stop the background services (the campaign workers finish the chunks in hand, the
    /// webhook dispatcher cuts its requests in flight; up to the grace period, then they are
    /// cancelled), commit what is queued, stop the server and close the store. Idempotent.
    ///
    /// - Throws: `RichPushError` `store` when the final checkpoint fails (data is still committed).
    public func shutdown() async throws {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        let clock = ContinuousClock()
        if let http {
            http.quiesce()
            let end = clock.now + .milliseconds(Int(configuration.shutdownGrace * 1000))
            while http.inFlight > 0 && clock.now < end { try? await Task.sleep(for: .milliseconds(10)) }
        }
        // The campaign workers finish the chunks in hand before the provider connections close.
        await services.shutdown(grace: configuration.shutdownGrace)
        if let sender {
            // Sends still waiting on APNs: close the connection so they fail fast and answer.
            sender.shutdown()
            let last = clock.now + .milliseconds(Int(configuration.shutdownGrace * 1000))
            while sender.inFlight > 0 && clock.now < last { try? await Task.sleep(for: .milliseconds(10)) }
        }
        writer.stop()
        mediaWorkers?.shutdown()
        http?.stop()
        try store.close()
    }
}
