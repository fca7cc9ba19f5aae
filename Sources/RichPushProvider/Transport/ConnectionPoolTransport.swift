@_spi(RichPushInternal) import RichPushCore

/// Several HTTP/2 connections to one provider host, as several transports of one connection
/// each (`richpush send --apns-connections N`): requests go to the least-loaded one.
///
/// Why N transports and not one libcurl multi handle with `CURLMOPT_MAX_HOST_CONNECTIONS = N`:
/// libcurl may open a second stream on a connection before that connection's SETTINGS arrived
/// (it assumes 100 streams until then), and it decides alone which connection a transfer joins;
/// against Apple's start-at-one `SETTINGS_MAX_CONCURRENT_STREAMS` that breaks the limit, and the
/// per-connection window (`HostStreamWindow`) could not be kept per connection. Each inner
/// transport keeps to one connection (`maxConnectionsPerHost = 1`) and follows its server's
/// `SETTINGS_MAX_CONCURRENT_STREAMS` as it changes, exactly as a single transport does; the pool
/// only decides which connection carries a request. Every connection carries the same
/// `authorization` header the client puts on each request, so one provider token (JWT) serves
/// all of them.
///
/// Spreading: each request (each request of a batch, in order) goes to the transport with the
/// fewest requests in flight, ties to the next in turn; so a batch of `N × streams` requests
/// fills every connection's window at once, and a slow connection gets fewer new requests.
public final class ConnectionPoolTransport: HTTPTransport {
    private let transports: [any HTTPTransport]
    /// Requests in flight per transport, and the next tie-break.
    private let load: Locked<(inFlight: [Int], next: Int)>

    /// Pools the given transports (each one connection).
    ///
    /// - Parameter transports: at least one.
    public init(transports: [any HTTPTransport]) {
        precondition(!transports.isEmpty, "a connection pool needs at least one transport")
        self.transports = transports
        load = Locked((Array(repeating: 0, count: transports.count), 0))
    }

    #if canImport(CCurl) && os(Linux)
    /// Opens `connections` libcurl transports of one connection each (connections are made on
    /// their first request).
    ///
    /// - Parameters:
    ///   - configuration: trust, certificate, bounds of each connection (`maxConcurrentStreams`
    ///     per connection; `maxConnectionsPerHost` is set to 1).
    ///   - connections: how many connections (1…64).
    /// - Throws: `RichPushError` `transport` when libcurl cannot start.
    public convenience init(configuration: TransportConfiguration, connections: Int) throws {
        var one = configuration
        one.maxConnectionsPerHost = 1
        var transports: [any HTTPTransport] = []
        for _ in 0..<max(1, connections) {
            do {
                transports.append(try CurlHTTP2Transport(configuration: one))
            } catch {
                for transport in transports { transport.shutdown() }
                throw error
            }
        }
        self.init(transports: transports)
    }
    #endif

    /// Picks the transports for `count` requests and counts them in flight.
    private func assign(_ count: Int) -> [Int] {
        load.withLock { state in
            var picks: [Int] = []
            picks.reserveCapacity(count)
            let n = state.inFlight.count
            for _ in 0..<count {
                var best = state.next % n
                for step in 1..<max(1, n) {
                    let candidate = (state.next + step) % n
                    if state.inFlight[candidate] < state.inFlight[best] { best = candidate }
                }
                state.inFlight[best] += 1
                state.next = (best + 1) % n
                picks.append(best)
            }
            return picks
        }
    }

    private func finished(_ index: Int, count: Int) {
        load.withLock { $0.inFlight[index] -= count }
    }

    /// Sends one request on the least-loaded connection.
    ///
    /// - Parameter request: the request.
    /// - Returns: its response.
    /// - Throws: `RichPushError` `transport` when no response arrived.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let index = assign(1)[0]
        defer { finished(index, count: 1) }
        return try await transports[index].send(request)
    }

    /// Spreads the batch over the connections (see the type's discussion) and waits for all.
    ///
    /// - Parameter requests: the requests, in order.
    /// - Returns: one result per request, in the same order.
    public func send(batch requests: [TransportRequest]) async -> [Result<TransportResponse, any Error>] {
        guard !requests.isEmpty else { return [] }
        let picks = assign(requests.count)
        var parts = [[Int]](repeating: [], count: transports.count)
        for (position, index) in picks.enumerated() { parts[index].append(position) }
        let assigned = parts
        return await withTaskGroup(of: (Int, [Result<TransportResponse, any Error>]).self) { group in
            for (index, positions) in assigned.enumerated() where !positions.isEmpty {
                let transport = transports[index]
                let part = positions.map { requests[$0] }
                group.addTask {
                    let results = await transport.send(batch: part)
                    self.finished(index, count: part.count)
                    return (index, results)
                }
            }
            var out = [Result<TransportResponse, any Error>?](repeating: nil, count: requests.count)
            for await (index, results) in group {
                for (position, result) in zip(assigned[index], results) { out[position] = result }
            }
            return out.map { $0 ?? .failure(RichPushError(code: .transport, message: "no result for the request")) }
        }
    }

    /// Connections opened by all the pool's transports.
    public var connectionsOpened: Int { transports.reduce(0) { $0 + $1.connectionsOpened } }

    /// Shuts every transport down without waiting.
    public func shutdown() {
        for transport in transports { transport.shutdown() }
    }

    /// Shuts every transport down and waits until none runs any more.
    public func close() async {
        for transport in transports { await transport.close() }
    }
}
