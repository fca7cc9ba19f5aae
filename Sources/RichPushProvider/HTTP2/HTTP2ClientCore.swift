#if canImport(CNGHTTP2) && os(Linux)
import Foundation
@_spi(RichPushInternal) import RichPushCore

/// The loop-thread side of an `HTTP2Client`: its pools (one per endpoint), the header blocks
/// requests share, and its figures. Loop thread only, except `statistics` (behind its lock);
/// `@unchecked Sendable` so work handed to the loop can name it.
final class HTTP2ClientCore: @unchecked Sendable {
    let settings: HTTP2ConnectionSettings
    let tls: HTTP2TLSContext
    let loop: HTTP2EventLoop
    let statistics = Locked(HTTP2ClientStatistics())

    private var pools: [HTTP2Endpoint: HTTP2HostPool] = [:]
    private var lastBlock: HTTP2HeaderBlock?
    /// The last URL's `scheme://authority` and what it parsed to.
    private var lastPrefix: String?
    private var lastEndpoint: HTTP2Endpoint?
    private var connectionCounter = 0
    private(set) var isShutDown = false

    init(settings: HTTP2ConnectionSettings, tls: HTTP2TLSContext, loop: HTTP2EventLoop) {
        self.settings = settings
        self.tls = tls
        self.loop = loop
    }

    /// Takes requests over (loop thread) and queues each on its endpoint's pool.
    func accept(_ requests: [TransportRequest], completions: (Int) -> HTTP2Stream.Completion) {
        var byPool: [(HTTP2HostPool, [HTTP2Stream])] = []
        for (index, request) in requests.enumerated() {
            let completion = completions(index)
            if isShutDown {
                HTTP2Stream.fail(completion, RichPushError(code: .transport, message: "the HTTP/2 client was shut down"))
                continue
            }
            let endpoint: HTTP2Endpoint
            let path: String
            do {
                (endpoint, path) = try split(request.url)
            } catch {
                HTTP2Stream.fail(completion, error)
                continue
            }
            let block = headerBlock(for: request, endpoint: endpoint)
            let stream = HTTP2Stream(
                request: request, endpoint: endpoint, path: path, headerBlock: block, completion: completion,
                bodyLimit: settings.maximumResponseBodyBytes)
            let pool = pool(for: endpoint)
            if let last = byPool.last, last.0 === pool {
                byPool[byPool.count - 1].1.append(stream)
            } else {
                byPool.append((pool, [stream]))
            }
        }
        for (pool, streams) in byPool { pool.enqueue(streams) }
    }

    /// Shuts every pool down (loop thread).
    func shutDown() {
        isShutDown = true
        for pool in pools.values { pool.shutDown() }
        pools.removeAll()
    }

    private func pool(for endpoint: HTTP2Endpoint) -> HTTP2HostPool {
        if let pool = pools[endpoint] { return pool }
        let pool = HTTP2HostPool(client: self, endpoint: endpoint, settings: settings, tls: endpoint.usesTLS ? tls : nil, loop: loop)
        pools[endpoint] = pool
        return pool
    }

    /// The endpoint and path of a URL; the endpoint of the last URL is reused when the prefix matches.
    private func split(_ url: String) throws -> (HTTP2Endpoint, String) {
        if let prefix = lastPrefix, let endpoint = lastEndpoint, url.utf8.count > prefix.utf8.count, url.hasPrefix(prefix) {
            let rest = url.utf8.dropFirst(prefix.utf8.count)
            if let first = rest.first, first == UInt8(ascii: "/") {
                return (endpoint, String(decoding: rest, as: UTF8.self))
            }
        }
        let (endpoint, path) = try HTTP2Endpoint.split(url)
        if path.hasPrefix("/"), url.hasSuffix(path) {
            lastPrefix = String(url.dropLast(path.count))
            lastEndpoint = endpoint
        }
        return (endpoint, path)
    }

    private func headerBlock(for request: TransportRequest, endpoint: HTTP2Endpoint) -> HTTP2HeaderBlock {
        if let last = lastBlock, last.matches(method: request.method, scheme: endpoint.scheme, authority: endpoint.authority, fields: request.headers) {
            return last
        }
        let block = HTTP2HeaderBlock(method: request.method, scheme: endpoint.scheme, authority: endpoint.authority, fields: request.headers)
        lastBlock = block
        return block
    }

    // MARK: Figures

    func count(_ field: WritableKeyPath<HTTP2ClientStatistics, Int>) {
        statistics.withLock { $0[keyPath: field] += 1 }
    }

    func noteConnectionOpened() { count(\.connectionsOpened) }

    func noteGoaway(errorCode: String, lastStreamID: Int32, debug: String) {
        let text = "\(errorCode) last-stream-id \(lastStreamID)" + (debug.isEmpty ? "" : " \(debug)")
        statistics.withLock {
            $0.goawaysReceived += 1
            $0.lastGoaway = text
        }
    }

    func nextConnectionID() -> Int {
        connectionCounter += 1
        return connectionCounter
    }
}
#endif
