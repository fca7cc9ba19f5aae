import Foundation

/// What the endpoints and admission share: the settings, the store, the counters, the admin
/// credential and its throttle, and the queues store work runs on.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let store: any ReceiptStore & StatisticsStore
    let metrics: ServerMetrics
    let auth: AdminAuthenticator
    let throttle = LoginThrottle()
    let origins: OriginPolicy
    /// Whether the public URL is `https://` (session cookies are then `Secure`).
    let publicHTTPS: Bool
    /// Device registrations and recorded sends are written here, one at a time.
    let storeWrites = BlockingQueue(label: "richpush.server.store-writes", concurrent: false)
    /// The admin's reads (lists, pages) run here, side by side.
    let storeReads = BlockingQueue(label: "richpush.server.store-reads", concurrent: true)
    private let trustedProxies: Set<String>

    init(configuration: ServerConfiguration, store: any ReceiptStore & StatisticsStore, metrics: ServerMetrics) {
        self.configuration = configuration
        self.store = store
        self.metrics = metrics
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

    /// The current time in ms since 1970.
    static var nowMs: Int { Int(Date().timeIntervalSince1970 * 1000) }
}
