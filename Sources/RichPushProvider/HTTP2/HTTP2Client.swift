#if canImport(CNGHTTP2) && os(Linux)
import Foundation
@_spi(RichPushInternal) import RichPushCore

/// RichPush's own HTTP/2 client for APNs and FCM: libnghttp2 for the protocol (frames, HPACK,
/// flow control, stream states), OpenSSL for TLS (1.2+, ALPN `h2`, SNI, the system trust store
/// or a CA file, client certificates), one epoll event-loop thread for every connection of the
/// process (`HTTP2EventLoop`), async/await for callers.
///
/// **Every request ends in exactly one of three states**, and the result says which:
/// - *answered*: `.success` with the status, header fields and body, whatever the status;
/// - *not processed*: the server refused the stream (`REFUSED_STREAM`), the stream was above a
///   GOAWAY's last-stream-id, or the request was never written. RFC 9113 §8.7 says such a request
///   can be sent again safely, so the client does that itself, at once, on a connection that can
///   take it (`statistics.resent`); only after `HTTP2HostPool.maximumResends` refusals in a row
///   does it fail with code `not_processed`. A request that could not be sent because no
///   connection could be made fails with `connection_failed` (or `tls_configuration`): it was
///   not sent either;
/// - *unknown*: the request was written, then the connection was lost (TCP reset, TLS failure,
///   an unanswered PING), the server reset the stream with another code, or no answer came within
///   `requestTimeout`. It fails with code `answer_unknown`: the server may have processed it, so
///   the client never sends it again by itself (see `TokenRetryLoop`: only a notification with an
///   `apns-collapse-id`, or a Live Activity update or end without an alert, is resent).
///
/// **Connections, as HTTP/2 and Apple define them** (docs/apns-connections.md):
/// `SETTINGS_MAX_CONCURRENT_STREAMS` is 1 until the server's first SETTINGS, then followed as it
/// changes, never exceeded (nor `maxConcurrentStreams`); a GOAWAY stops new streams on that
/// connection while the streams at or below its last-stream-id keep waiting for their answers,
/// and a replacement opens at once (`connections` per endpoint, requests spread over them); no
/// RST_STREAM is sent for a stream whose answer ended (only to cancel one that timed out);
/// a connection with requests in flight and nothing received for a fifth of `pingTimeout` gets a
/// PING, an idle one a PING every `idlePingInterval`, and an unanswered PING ends it.
///
/// `@unchecked Sendable`: its state lives on the loop thread (`HTTP2ClientCore`); the only other
/// field, `isShutDown`, is behind its lock.
public final class HTTP2Client: HTTPTransport, @unchecked Sendable {
    private let core: HTTP2ClientCore
    private let loop: HTTP2EventLoop
    private let isShutDown = Locked(false)

    /// Makes a client; connections are opened on the first requests.
    ///
    /// - Parameter configuration: trust, client certificate, streams and connections per endpoint,
    ///   timeouts (`TransportConfiguration`).
    /// - Throws: `RichPushError` `tls_configuration` when the CA file or the client certificate
    ///   cannot be used (naming the file and the fix), `transport` when the event loop cannot start.
    public init(configuration: TransportConfiguration = TransportConfiguration()) throws {
        loop = HTTP2EventLoop.shared
        core = HTTP2ClientCore(settings: HTTP2ConnectionSettings(configuration), tls: try HTTP2TLSContext(configuration: configuration), loop: loop)
        try loop.execute {}
    }

    /// Sends one request and waits for its end.
    ///
    /// - Parameter request: the request (an absolute `https://` or `http://` URL).
    /// - Returns: the answer, whatever its status.
    /// - Throws: `RichPushError` with code `answer_unknown` (written, no answer: may have been
    ///   processed), `not_processed`, `connection_failed`, `tls_configuration`, `invalid_request`
    ///   (a URL it cannot use) or `transport` (shut down).
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await withCheckedThrowingContinuation { continuation in
            hand([request], fail: { continuation.resume(throwing: $0) }) { { _ in .single(continuation) } }
        }
    }

    /// Sends many requests at once (as many streams as the connections allow, the rest waiting in
    /// order) and waits until every one has ended: one suspension for the whole batch.
    ///
    /// - Parameter requests: the requests, in order.
    /// - Returns: one result per request, in the same order; each failure as `send(_:)` throws it.
    public func send(batch requests: [TransportRequest]) async -> [Result<TransportResponse, any Error>] {
        guard !requests.isEmpty else { return [] }
        let count = requests.count
        return await withCheckedContinuation { continuation in
            hand(requests, fail: { error in continuation.resume(returning: Array(repeating: .failure(error), count: count)) }) {
                let batch = HTTP2Batch(count: count, continuation: continuation)
                return { .batch(batch, $0) }
            }
        }
    }

    /// Hands requests to the loop thread; `completions` runs there once and gives each request's end.
    private func hand(
        _ requests: [TransportRequest], fail: @escaping @Sendable (any Error) -> Void,
        completions: @escaping @Sendable () -> (Int) -> HTTP2Stream.Completion
    ) {
        if isShutDown.withLock({ $0 }) {
            fail(RichPushError(code: .transport, message: "the HTTP/2 client was shut down"))
            return
        }
        let core = self.core
        do {
            try loop.execute { core.accept(requests, completions: completions()) }
        } catch {
            fail(error)
        }
    }

    /// Connections opened so far (TCP connections made).
    public var connectionsOpened: Int { core.statistics.connectionsOpened }

    /// What the client has done so far (answers, resends, unknowns, GOAWAYs, PINGs).
    public var statistics: HTTP2ClientStatistics { core.statistics }

    /// `statistics`.
    public var connectionStatistics: HTTP2ClientStatistics? { statistics }

    /// Fails what waits, closes the connections; returns at once. Later sends fail.
    public func shutdown() {
        guard
            isShutDown.withLock({ value in
                defer { value = true }; return !value
            })
        else { return }
        let core = self.core
        try? loop.execute { core.shutDown() }
    }

    /// Shuts down as `shutdown()` and returns once the loop thread has closed every connection
    /// and freed their TLS state.
    public func close() async {
        isShutDown.withLock { $0 = true }
        let core = self.core
        let loop = self.loop
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            do {
                try loop.execute {
                    if !core.isShutDown { core.shutDown() }
                    continuation.resume()
                }
            } catch {
                continuation.resume()
            }
        }
    }

    deinit {
        let core = self.core
        try? loop.execute { if !core.isShutDown { core.shutDown() } }
    }
}
#endif
