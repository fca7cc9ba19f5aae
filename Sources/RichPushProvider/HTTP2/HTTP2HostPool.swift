#if canImport(CNGHTTP2) && os(Linux)
import Foundation
import RichPushCore

/// The connections of one `HTTP2Client` to one endpoint, and the requests waiting for a stream.
/// Loop thread only.
///
/// - Spreading: each waiting request goes to the open connection with the most free streams
///   (ties: the earlier one), so a batch fills every connection's window and a slow connection
///   gets fewer.
/// - Opening: while requests wait and every open connection is full, one more connection per
///   `maxConcurrentStreams` waiting requests is opened, up to `connections` live ones (a
///   connection that received GOAWAY does not count: its replacement opens before it drains).
/// - Not processed: a request refused (`REFUSED_STREAM`), above a GOAWAY's last-stream-id, or
///   never written is queued again at the front, at once, without it counting as an attempt
///   (RFC 9113 §8.7: safe to retry); after `maximumResends` such ends it fails `not_processed`.
/// - No connection: when a connection cannot be made and no other is open or opening, every
///   waiting request fails with the connection's error (`connection_failed`, or
///   `tls_configuration` for a certificate that cannot work).
final class HTTP2HostPool {
    unowned let client: HTTP2ClientCore
    let endpoint: HTTP2Endpoint
    let settings: HTTP2ConnectionSettings
    let tls: HTTP2TLSContext?
    let loop: HTTP2EventLoop

    /// Requests waiting for a stream (`queueHead` on; taken slots are emptied so a sent request
    /// is not held here); resends go to `front`.
    private var queue: [HTTP2Stream?] = []
    private var queueHead = 0
    private var front: [HTTP2Stream] = []
    private(set) var connections: [HTTP2Connection] = []
    private var dispatchScheduled = false
    /// The next connection may be opened from then (after a failure, not at once).
    private var nextOpenAllowed: UInt64 = 0
    private var failuresInARow = 0
    /// When the last answer came from this endpoint (`HTTP2Clock`).
    private var lastAnswerAt: UInt64 = 0
    /// Until then the endpoint counts as silent: new requests fail at once (see `requestTimedOut`).
    private var silentUntil: UInt64 = 0
    private var silence: RichPushError?

    /// Times a request may end not processed and be queued again before it fails.
    static let maximumResends = 8

    init(client: HTTP2ClientCore, endpoint: HTTP2Endpoint, settings: HTTP2ConnectionSettings, tls: HTTP2TLSContext?, loop: HTTP2EventLoop) {
        self.client = client
        self.endpoint = endpoint
        self.settings = settings
        self.tls = tls
        self.loop = loop
    }

    private var waiting: Int { front.count + queue.count - queueHead }

    /// Queues requests and sends what the connections can take.
    func enqueue(_ streams: [HTTP2Stream]) {
        if let silence, HTTP2Clock.now < silentUntil {
            for stream in streams { stream.finish(.failure(silence)) }
            return
        }
        queue.reserveCapacity(queue.count + streams.count)
        for stream in streams { queue.append(stream) }
        dispatch()
    }

    /// A stream got its answer.
    func answered() { lastAnswerAt = HTTP2Clock.now }

    /// A request timed out. When nothing at all was answered by this endpoint since it was
    /// submitted, the endpoint takes requests and answers none (its connections may still
    /// acknowledge PINGs): the requests waiting here fail at once with `connection_failed` (they
    /// were not sent), and so do new ones for another request timeout, instead of each waiting a
    /// timeout of its own. The requests in flight end `unknown` at their own timeouts.
    func requestTimedOut(_ stream: HTTP2Stream) {
        guard lastAnswerAt < stream.submittedAt else { return }
        let seconds = HTTP2Connection.format(settings.requestTimeout)
        let error = RichPushError(
            code: .connectionFailed,
            message:
                "\(endpoint.description) took requests and answered none of them in \(seconds) s; the requests waiting for it were not sent, new ones fail for \(seconds) s: check that the server is up and answering, and the network"
        )
        silence = error
        silentUntil = HTTP2Clock.now + UInt64(settings.requestTimeout * 1e9)
        failWaiting(error)
    }

    /// A request that the server did not process: queued again at the front, at once.
    func notProcessed(_ stream: HTTP2Stream, reason: String) {
        stream.resends += 1
        if stream.resends > Self.maximumResends {
            client.count(\.notProcessed)
            stream.finish(
                .failure(
                    RichPushError(
                        code: .notProcessed,
                        message:
                            "\(endpoint.description) did not process the request \(stream.resends) times in a row (last: \(reason)); it was never processed, so sending it later is safe"
                    )))
            return
        }
        client.count(\.resent)
        front.append(stream)
        scheduleDispatch()
    }

    /// Requests a connection took but never got to the server (its TLS refused us): back to the
    /// front of the queue, in order, without counting as a resend.
    func returnUnsent(_ streams: [HTTP2Stream]) {
        front.insert(contentsOf: streams, at: 0)
    }

    /// Dispatches at the end of this round (after the events that freed streams).
    func scheduleDispatch() {
        guard !dispatchScheduled else { return }
        dispatchScheduled = true
        loop.atRoundEnd { [self] in
            dispatchScheduled = false
            dispatch()
        }
    }

    /// Hands waiting requests to the connections with free streams; opens connections if needed.
    func dispatch() {
        while waiting > 0 {
            var best: HTTP2Connection?
            var bestRoom = 0
            for connection in connections {
                let room = connection.availableStreams
                if room > bestRoom {
                    best = connection
                    bestRoom = room
                }
            }
            guard let connection = best, let stream = popWaiting() else { break }
            if !connection.submit(stream) {
                pushFront(stream)
                continue
            }
        }
        if queueHead > 4096, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
        if waiting > 0 { openIfNeeded() }
    }

    private func popWaiting() -> HTTP2Stream? {
        if !front.isEmpty { return front.removeFirst() }
        guard queueHead < queue.count, let stream = queue[queueHead] else { return nil }
        queue[queueHead] = nil
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        return stream
    }

    private func pushFront(_ stream: HTTP2Stream) { front.insert(stream, at: 0) }

    /// Opens connections while requests wait (see the type's discussion).
    private func openIfNeeded() {
        let live = connections.filter(\.isLive)
        guard live.count < settings.connections, HTTP2Clock.now >= nextOpenAllowed else {
            if live.isEmpty, HTTP2Clock.now < nextOpenAllowed {
                loop.schedule(after: Double(nextOpenAllowed - HTTP2Clock.now) / 1e9) { [weak self] in self?.dispatch() }
            }
            return
        }
        let opening = live.filter(\.isOpening).count
        // Room the opening connections will bring, counted at the configured streams.
        let wanted = (waiting + settings.maxConcurrentStreams - 1) / settings.maxConcurrentStreams
        var toOpen = min(settings.connections - live.count, max(0, wanted - opening))
        if live.isEmpty { toOpen = max(toOpen, 1) }
        for _ in 0..<toOpen { open() }
    }

    private func open() {
        let connection = HTTP2Connection(
            id: client.nextConnectionID(), endpoint: endpoint, pool: self, loop: loop, settings: settings, tls: tls)
        connections.append(connection)
        connection.start()
    }

    // MARK: Told by the connections

    /// A connection finished its setup: it takes streams now.
    func connectionReady(_ connection: HTTP2Connection) {
        failuresInARow = 0
        dispatch()
    }

    /// A stream ended on `connection`: its stream is free.
    func streamEnded(on connection: HTTP2Connection) {
        if waiting > 0 { scheduleDispatch() }
    }

    /// A connection received GOAWAY: open its replacement before it drains, when it carried
    /// requests or requests wait.
    func connectionDraining(_ connection: HTTP2Connection, hadStreams: Bool) {
        if hadStreams || waiting > 0, connections.filter(\.isLive).count < settings.connections {
            open()
        }
        scheduleDispatch()
    }

    /// A connection closed. `error` is set when it never opened (no connection could be made).
    func connectionClosed(_ connection: HTTP2Connection, error: RichPushError?) {
        connections.removeAll { $0 === connection }
        if let error {
            failuresInARow += 1
            let backoff = min(5.0, 0.1 * pow(2, Double(min(failuresInARow - 1, 6))))
            nextOpenAllowed = HTTP2Clock.now + UInt64(backoff * 1e9)
            if !connections.contains(where: { $0.phase == .open || $0.isOpening }) {
                failWaiting(error)
                return
            }
        }
        if waiting > 0 { scheduleDispatch() }
    }

    /// Fails every waiting request with `error` (nothing of them was sent).
    func failWaiting(_ error: RichPushError) {
        let failed = front + queue[queueHead...].compactMap { $0 }
        front.removeAll()
        queue.removeAll()
        queueHead = 0
        for stream in failed { stream.finish(.failure(error)) }
    }

    /// Fails everything and closes every connection (the client shuts down).
    func shutDown() {
        failWaiting(RichPushError(code: .transport, message: "the HTTP/2 client was shut down before the request was sent"))
        for connection in connections {
            let streams = connection.streams.values
            connection.streams.removeAll()
            connection.teardown()
            for stream in streams {
                stream.finish(.failure(RichPushError(code: .transport, message: "the HTTP/2 client was shut down while the request was in flight")))
            }
        }
        connections.removeAll()
    }
}
#endif
