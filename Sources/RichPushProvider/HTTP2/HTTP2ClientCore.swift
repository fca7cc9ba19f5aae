#if canImport(CNGHTTP2) && os(Linux)
import Foundation
@_spi(RichPushInternal) import RichPushCore
import Synchronization

/// The loop-thread side of an `HTTP2Client`: its pools (one per endpoint), the header blocks
/// requests share, and its figures. Loop thread only, except `statistics` (behind its lock);
/// `@unchecked Sendable` so work handed to the loop can name it.
final class HTTP2ClientCore: @unchecked Sendable {
    let settings: HTTP2ConnectionSettings
    let tls: HTTP2TLSContext
    let loop: HTTP2EventLoop
    /// The figures but `answered`, behind a lock (they move rarely).
    private let rare = Locked(HTTP2ClientStatistics())
    /// Answers so far: one per request, so an atomic rather than the lock.
    private let answers = Atomic<Int>(0)

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
        var currentPool: HTTP2HostPool?
        var streams: [HTTP2Stream] = []
        streams.reserveCapacity(requests.count)
        for (index, request) in requests.enumerated() {
            let completion = completions(index)
            if isShutDown {
                HTTP2Stream.fail(completion, RichPushError(code: .transport, message: "the HTTP/2 client was shut down"))
                continue
            }
            let endpoint: HTTP2Endpoint
            let path: (source: String, start: Int)
            do {
                (endpoint, path) = try split(request.url)
            } catch {
                HTTP2Stream.fail(completion, error)
                continue
            }
            let block = headerBlock(for: request, endpoint: endpoint)
            let stream = HTTP2Stream(
                request: request, endpoint: endpoint, pathSource: path.source, pathStart: path.start, headerBlock: block, completion: completion,
                bodyLimit: settings.maximumResponseBodyBytes)
            let pool = currentPool?.endpoint == endpoint ? currentPool : pool(for: endpoint)
            if let currentPool, currentPool !== pool, !streams.isEmpty {
                currentPool.enqueue(streams)
                streams.removeAll(keepingCapacity: true)
            }
            currentPool = pool
            streams.append(stream)
        }
        if let currentPool, !streams.isEmpty { currentPool.enqueue(streams) }
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

    /// The endpoint of a URL and where its path starts (the string holding the path, and the
    /// path's first UTF-8 byte in it). The last URL's `scheme://authority` is kept: a URL that
    /// starts with it (APNs: every device token's) is split without parsing.
    private func split(_ url: String) throws -> (HTTP2Endpoint, (source: String, start: Int)) {
        if let prefix = lastPrefix, let endpoint = lastEndpoint, Self.startsWithPathAfter(url, prefix) {
            return (endpoint, (url, prefix.utf8.count))
        }
        let (endpoint, path) = try HTTP2Endpoint.split(url)
        if path.hasPrefix("/"), url.hasSuffix(path), url.utf8.count > path.utf8.count {
            lastPrefix = String(url.dropLast(path.count))
            lastEndpoint = endpoint
            return (endpoint, (url, url.utf8.count - path.utf8.count))
        }
        return (endpoint, (path, 0))
    }

    /// Whether `url`'s UTF-8 starts with `prefix`'s and continues with `/`.
    private static func startsWithPathAfter(_ url: String, _ prefix: String) -> Bool {
        var url = url
        var prefix = prefix
        return url.withUTF8 { u in
            prefix.withUTF8 { p in
                guard u.count > p.count, let ub = u.baseAddress, let pb = p.baseAddress, ub[p.count] == UInt8(ascii: "/") else { return false }
                return memcmp(ub, pb, p.count) == 0
            }
        }
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

    /// The figures so far (any thread).
    var statistics: HTTP2ClientStatistics {
        var figures = rare.withLock { $0 }
        figures.answered = answers.load(ordering: .relaxed)
        return figures
    }

    /// One more answer.
    func countAnswer() { answers.add(1, ordering: .relaxed) }

    /// One more of a rare event.
    func count(_ field: WritableKeyPath<HTTP2ClientStatistics, Int>) {
        rare.withLock { $0[keyPath: field] += 1 }
    }

    func noteConnectionOpened() { count(\.connectionsOpened) }

    func noteGoaway(from endpoint: HTTP2Endpoint, errorCode: String, lastStreamID: Int32, debug: String) {
        let text = "\(errorCode) last-stream-id \(lastStreamID)" + (debug.isEmpty ? "" : " \(debug)")
        rare.withLock {
            $0.goawaysReceived += 1
            $0.lastGoaway = text
        }
        settings.eventLog?("GOAWAY from \(endpoint.description): \(text)")
    }

    func nextConnectionID() -> Int {
        connectionCounter += 1
        return connectionCounter
    }
}
#endif
