import Foundation
import RichPushMedia

/// What the endpoints and admission share: the settings, the store, the counters, the admin
/// credential and its throttle, and the store's lanes (`StoreLanes`: the one door store work
/// goes through).
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let store: any ReceiptStore & StatisticsStore
    let metrics: ServerMetrics
    /// The webhook outbox's deliverer, when `--webhook-url` is given.
    let webhooks: WebhookDispatcher?
    /// The media workers conversions run in, with the media edge.
    let mediaWorkers: MediaWorkerPool?
    /// The media edge's files this instance holds in memory (`--media-cache-bytes`).
    let mediaCache: MediaObjectCache
    let auth: AdminAuthenticator
    let throttle = LoginThrottle()
    /// Rows anonymous requests may create per client address.
    let creationBudget: CreationBudget
    let origins: OriginPolicy
    /// Checks the device a per-device receipt names (secrets cached).
    let recipients = ReceiptDeviceVerifier()
    /// Whether the public URL is `https://` (session cookies are then `Secure`).
    let publicHTTPS: Bool
    /// Where store work runs: reads side by side, request writes one at a time, long and
    /// background work apart.
    let lanes: StoreLanes
    private let trustedProxies: Set<String>

    init(
        configuration: ServerConfiguration, store: any ReceiptStore & StatisticsStore, metrics: ServerMetrics, webhooks: WebhookDispatcher? = nil,
        mediaWorkers: MediaWorkerPool? = nil, lanes: StoreLanes = StoreLanes()
    ) {
        self.configuration = configuration
        self.store = store
        self.metrics = metrics
        self.webhooks = webhooks
        self.mediaWorkers = mediaWorkers
        mediaCache = MediaObjectCache(maximumBytes: configuration.mediaEdge?.cacheBytes ?? 0)
        self.lanes = lanes
        creationBudget = CreationBudget(burst: configuration.newRowsBurst, perSecond: configuration.newRowsPerSecond)
        auth = AdminAuthenticator(token: configuration.adminToken)
        origins = OriginPolicy(publicURL: configuration.publicURL)
        trustedProxies = Set(configuration.trustedProxies.map(ClientOrigin.normalized))
        publicHTTPS = configuration.publicURL?.lowercased().hasPrefix("https://") == true
    }

    /// The client behind the request (trusted proxies' forwarding headers applied).
    ///
    /// - Parameter request: the request.
    /// - Returns: the client.
    func client(_ request: ServerRequest) -> ClientOrigin {
        ClientOrigin.resolve(
            peer: request.peer, header: { request.header($0) }, headerValues: { request.headerValues($0) }, trustedProxies: trustedProxies)
    }

    /// Runs an admin read on the `read` lane; a store failure becomes `503 store_error` with the
    /// store's message (the admin may see the detail: the database path helps them).
    ///
    /// - Parameter work: the read.
    /// - Returns: what it read.
    /// - Throws: `HTTPResponseError` 503 `store_error`.
    func read<T: Sendable>(_ work: @escaping @Sendable (any ReceiptStore & StatisticsStore) throws -> T) async throws(HTTPResponseError) -> T {
        try await run(work, on: .read, retry: false)
    }

    /// Runs a write on the `write` lane (one at a time); a store failure becomes `503
    /// store_error` with `Retry-After: 1`.
    ///
    /// - Parameter work: the write.
    /// - Returns: what it returned.
    /// - Throws: `HTTPResponseError` 503 `store_error`.
    func write<T: Sendable>(_ work: @escaping @Sendable (any ReceiptStore & StatisticsStore) throws -> T) async throws(HTTPResponseError) -> T {
        try await run(work, on: .write, retry: true)
    }

    /// Runs a long write a request starts (a campaign's audience snapshot) on the `background`
    /// lane, off the request writes; a store failure becomes `503 store_error` with `Retry-After: 1`.
    ///
    /// - Parameter work: the write.
    /// - Returns: what it returned.
    /// - Throws: `HTTPResponseError` 503 `store_error`.
    func long<T: Sendable>(_ work: @escaping @Sendable (any ReceiptStore & StatisticsStore) throws -> T) async throws(HTTPResponseError) -> T {
        try await run(work, on: .background, retry: true)
    }

    private func run<T: Sendable>(
        _ work: @escaping @Sendable (any ReceiptStore & StatisticsStore) throws -> T, on lane: StoreLanes.Lane, retry: Bool
    ) async throws(HTTPResponseError) -> T {
        let store = self.store
        do {
            return try await lanes.run(lane) { try work(store) }
        } catch {
            throw .store(error, retry: retry)
        }
    }

    /// The current time in ms since 1970.
    static var nowMs: Int { Int(Date().timeIntervalSince1970 * 1000) }
}
