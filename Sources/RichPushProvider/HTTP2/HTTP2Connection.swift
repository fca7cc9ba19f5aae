#if canImport(CNGHTTP2) && os(Linux)
import CNGHTTP2
import Foundation
import RichPushCore

/// One HTTP/2 connection of an `HTTP2HostPool`: a non-blocking socket, TLS (OpenSSL, ALPN `h2`)
/// or cleartext by prior knowledge, and an nghttp2 client session; driven by the event loop.
///
/// Its life: resolving → connecting → handshaking → open → (GOAWAY received) draining →
/// closing → closed. While open it takes new streams up to the smaller of the configured
/// streams and the server's `SETTINGS_MAX_CONCURRENT_STREAMS` (1 until the server's first
/// SETTINGS: Apple starts at one). On GOAWAY it takes no new stream; nghttp2 closes the streams
/// above the last-stream-id with `REFUSED_STREAM` (not processed: the pool sends them again),
/// the others keep waiting for their answers; when none is left it sends its own GOAWAY, ends
/// TLS and reads until the server closes, so no answer is lost to a reset of unread bytes.
///
/// Every stream ends in one of three states (see `HTTP2Client`). Loop thread only;
/// `@unchecked Sendable` so that work handed back to the loop (a name resolved on another
/// thread) can name it.
final class HTTP2Connection: HTTP2EventSource, @unchecked Sendable {
    enum Phase: Equatable {
        case resolving, connecting, handshaking, open, draining, closing, closed
    }

    let id: Int
    let endpoint: HTTP2Endpoint
    unowned let pool: HTTP2HostPool
    let loop: HTTP2EventLoop
    let settings: HTTP2ConnectionSettings
    let tls: HTTP2TLSContext?

    var phase: Phase = .resolving
    var fd: Int32 = -1
    var registration: UInt64?
    var watchedEvents: UInt32 = 0
    var ssl: OpaquePointer?
    var session: OpaquePointer?
    /// Streams in flight, by id.
    var streams: [Int32: HTTP2Stream] = [:]
    /// Stream ids in the order they were submitted, for the request timeout (`timeoutHead` on).
    var submitted: [Int32] = []
    var timeoutHead = 0
    /// Frames nghttp2 produced that the socket has not taken yet (`outboundOffset` on).
    var outbound: [UInt8] = []
    var outboundOffset = 0
    var flushScheduled = false
    /// The lowest last-stream-id of the GOAWAYs received.
    var goawayLastStreamID: Int32?
    var settingsReceived = false
    let startedAt = HTTP2Clock.now
    /// Last time bytes arrived, or the streams in flight started after a quiet spell.
    var lastProgressAt = HTTP2Clock.now
    /// Last time a stream was submitted or ended, for the idle PING.
    var lastActivityAt = HTTP2Clock.now
    var pingSentAt: UInt64?
    var tick: HTTP2Timer?
    var lingerUntil: UInt64 = 0
    /// Our GOAWAY went out and the write side was shut (closing).
    var sentShutdown = false
    /// Bytes of HTTP/2 (decrypted) arrived from the server.
    var receivedApplicationData = false
    /// Addresses still to try, when connecting to the current one fails.
    var addresses: [HTTP2SocketAddress] = []
    /// Why the connection failed or closed, for the requests it carried.
    var closeReason: String?

    init(id: Int, endpoint: HTTP2Endpoint, pool: HTTP2HostPool, loop: HTTP2EventLoop, settings: HTTP2ConnectionSettings, tls: HTTP2TLSContext?) {
        self.id = id
        self.endpoint = endpoint
        self.pool = pool
        self.loop = loop
        self.settings = settings
        self.tls = tls
    }

    /// Whether it counts towards the pool's connections (not going away).
    var isLive: Bool {
        switch phase {
        case .resolving, .connecting, .handshaking, .open: return true
        case .draining, .closing, .closed: return false
        }
    }

    /// Whether it is still being set up.
    var isOpening: Bool { phase == .resolving || phase == .connecting || phase == .handshaking }

    /// New streams it can take now.
    var availableStreams: Int {
        guard phase == .open, let session else { return 0 }
        let remote = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return max(0, min(settings.maxConcurrentStreams, remote) - streams.count)
    }

    // MARK: Setting up

    /// Starts: resolves the host (an IP literal at once, a name on another thread), then connects.
    func start() {
        scheduleTick()
        if let literal = HTTP2SocketAddress.literal(endpoint.host, port: endpoint.port) {
            addresses = [literal]
            connectNext(lastError: nil)
            return
        }
        let host = endpoint.host, port = endpoint.port
        HTTP2SocketAddress.resolve(host: host, port: port) { [self] result in
            try? loop.execute { [self] in
                guard phase == .resolving else { return }
                switch result {
                case .success(let found):
                    addresses = found
                    connectNext(lastError: nil)
                case .failure(let failure):
                    fail(
                        RichPushError(
                            code: .connectionFailed, message: "cannot resolve \(endpoint.host): \(failure.message); check the host name and the network"))
                }
            }
        }
    }

    /// Connects to the next address (after `lastError` on the one before, if any).
    func connectNext(lastError: String?) {
        guard let address = addresses.first else {
            fail(
                RichPushError(
                    code: .connectionFailed,
                    message: "cannot connect to \(endpoint.description): \(lastError ?? "no address"); check the host, port and network"))
            return
        }
        addresses.removeFirst()
        var inProgress: Int32 = 0
        let socket = address.withSockaddr { richpush_tcp_connect($0, $1, &inProgress) }
        guard socket >= 0 else {
            connectNext(lastError: String(cString: strerror(-socket)))
            return
        }
        fd = socket
        phase = .connecting
        registration = loop.add(fd: fd, events: UInt32(EPOLLOUT.rawValue), source: self)
        watchedEvents = UInt32(EPOLLOUT.rawValue)
        guard registration != nil else {
            close(fd)
            fd = -1
            fail(RichPushError(code: .transport, message: "the event loop cannot watch a socket (epoll_ctl failed)"))
            return
        }
        if inProgress == 0 { connected() }
    }

    /// The TCP connection is up: TLS next, or HTTP/2 at once for cleartext.
    func connected() {
        pool.client.noteConnectionOpened()
        guard let tls else {
            startSession()
            return
        }
        guard let ssl = SSL_new(tls.context) else {
            fail(RichPushError(code: .transport, message: "OpenSSL could not make a TLS connection (\(HTTP2TLSContext.lastError()))"))
            return
        }
        self.ssl = ssl
        // Writes with MSG_NOSIGNAL: a server that closed must not raise SIGPIPE in this process.
        guard richpush_ssl_set_socket(ssl, fd) == 1 else {
            fail(RichPushError(code: .transport, message: "OpenSSL could not make a socket BIO (out of memory?)"))
            return
        }
        SSL_set_connect_state(ssl)
        let host = endpoint.host
        if HTTP2SocketAddress.isIPLiteral(host) {
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        } else {
            _ = richpush_ssl_set_sni(ssl, host)
            _ = SSL_set1_host(ssl, host)
        }
        phase = .handshaking
        continueHandshake()
    }

    func continueHandshake() {
        guard let ssl else { return }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            var protocolName: UnsafePointer<UInt8>?
            var length: UInt32 = 0
            SSL_get0_alpn_selected(ssl, &protocolName, &length)
            let agreed = protocolName.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self) }
            guard agreed == "h2" else {
                fail(
                    RichPushError(
                        code: .tlsConfiguration,
                        message:
                            "\(endpoint.description) does not speak HTTP/2 (TLS ALPN agreed on \(agreed.map { "'\($0)'" } ?? "nothing"), not 'h2'); APNs and FCM speak HTTP/2: check \(settings.names.url)"
                    ))
                return
            }
            startSession()
            return
        }
        let error = SSL_get_error(ssl, result)
        switch error {
        case SSL_ERROR_WANT_READ: watch(UInt32(EPOLLIN.rawValue))
        case SSL_ERROR_WANT_WRITE: watch(UInt32(EPOLLOUT.rawValue))
        default:
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                let why = String(cString: X509_verify_cert_error_string(verify))
                fail(
                    RichPushError(
                        code: .tlsConfiguration,
                        message:
                            "the TLS certificate of \(endpoint.description) is not trusted (\(why)); for a test server pass its CA with \(settings.names.caFile)"
                    ))
            } else {
                let detail = HTTP2TLSContext.lastError()
                let certificateHint =
                    tls.map { _ in settings.hasClientCertificate } == true ? " (the server may have refused \(settings.names.certificate))" : ""
                fail(RichPushError(code: .connectionFailed, message: "the TLS handshake with \(endpoint.description) failed: \(detail)\(certificateHint)"))
            }
        }
    }

    /// TLS (if any) is up: the HTTP/2 session starts with its preface and SETTINGS.
    func startSession() {
        var session: OpaquePointer?
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        // Apple opens a connection with SETTINGS_MAX_CONCURRENT_STREAMS = 1: until the server's
        // first SETTINGS, one stream (nghttp2 would assume 100).
        nghttp2_option_set_peer_max_concurrent_streams(option, 1)
        let created = nghttp2_session_client_new2(&session, HTTP2Callbacks.shared.callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        nghttp2_option_del(option)
        guard created == 0, let session else {
            fail(RichPushError(code: .transport, message: "nghttp2 could not start a session (\(created))"))
            return
        }
        self.session = session
        var entries = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: UInt32(HTTP2ConnectionSettings.streamWindow)),
        ]
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
        _ = nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(HTTP2ConnectionSettings.connectionWindow))
        phase = .open
        watch(UInt32(EPOLLIN.rawValue))
        lastProgressAt = HTTP2Clock.now
        lastActivityAt = lastProgressAt
        scheduleFlush()
        pool.connectionReady(self)
    }

    // MARK: Streams

    /// Submits a stream (the caller checked `availableStreams`).
    /// - Returns: `false` when nghttp2 refused it (no stream id left): the connection then takes
    ///   no more and the caller queues the request again.
    func submit(_ stream: HTTP2Stream) -> Bool {
        guard let session else { return false }
        let pointer = Unmanaged.passUnretained(stream).toOpaque()
        let hasBody = stream.request.method != "GET" && stream.request.method != "HEAD"
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: pointer), read_callback: HTTP2Callbacks.readBody)
        let id = stream.headerBlock.withPairs(path: stream.pathSource, from: stream.pathStart) { pairs, count in
            hasBody
                ? nghttp2_submit_request(session, nil, pairs, count, &provider, pointer)
                : nghttp2_submit_request(session, nil, pairs, count, nil, pointer)
        }
        guard id > 0 else {
            // NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE: 2^31 streams used; drain and let a new one take over.
            if phase == .open { phase = .draining }
            return false
        }
        let now = HTTP2Clock.now
        if streams.isEmpty { lastProgressAt = now }
        stream.streamID = id
        stream.submittedAt = now
        stream.written = false
        stream.bodyOffset = 0
        streams[id] = stream
        submitted.append(id)
        lastActivityAt = now
        scheduleFlush()
        return true
    }

    /// A stream ended (nghttp2's on_stream_close): decide its state.
    func streamClosed(_ id: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        lastActivityAt = HTTP2Clock.now
        if let status = stream.status, status >= 200 {
            pool.client.countAnswer()
            pool.answered()
            stream.finish(.success(stream.response()))
        } else if stream.timedOut {
            pool.requestTimedOut(stream)
            unknown(
                stream,
                "no answer within \(Self.format(settings.requestTimeout)) s (the request was cancelled); \(endpoint.description) may have processed it")
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
            pool.notProcessed(
                stream,
                reason: goawayLastStreamID.map { id > $0 ? "above the GOAWAY's last-stream-id \($0)" : "refused (REFUSED_STREAM)" }
                    ?? "refused (REFUSED_STREAM)")
        } else if !stream.written {
            pool.notProcessed(stream, reason: "not written before the stream closed")
        } else {
            unknown(
                stream,
                "\(endpoint.description) reset the stream (\(Self.errorName(errorCode))) before answering; it may have processed it")
        }
        pool.streamEnded(on: self)
        if phase == .draining, streams.isEmpty { beginClose() }
    }

    func unknown(_ stream: HTTP2Stream, _ message: String) {
        pool.client.count(\.unknown)
        stream.finish(.failure(RichPushError(code: .answerUnknown, message: message)))
    }

    /// A GOAWAY arrived: no new stream from now on.
    func goawayReceived(lastStreamID: Int32, errorCode: UInt32, debug: String) {
        goawayLastStreamID = min(goawayLastStreamID ?? Int32.max, lastStreamID)
        pool.client.noteGoaway(from: endpoint, errorCode: Self.errorName(errorCode), lastStreamID: lastStreamID, debug: debug)
        if phase == .open {
            phase = .draining
            pool.connectionDraining(self, hadStreams: !streams.isEmpty)
        }
        if streams.isEmpty { beginClose() }
    }

    // MARK: Ending

    /// Draining with nothing left: our GOAWAY, TLS close_notify, then read until the server closes.
    func beginClose() {
        guard phase == .draining || phase == .open, let session else { return }
        phase = .closing
        _ = nghttp2_session_terminate_session(session, UInt32(NGHTTP2_NO_ERROR.rawValue))
        lingerUntil = HTTP2Clock.now + UInt64(HTTP2ConnectionSettings.linger * 1e9)
        scheduleFlush()
    }

    /// The connection failed before or while it carried streams: each stream gets its state
    /// (unknown when written, queued again when not), the pool hears why.
    func fail(_ error: RichPushError) {
        guard phase != .closed else { return }
        let wasOpen = session != nil
        closeReason = error.message
        let ended = streams.values.sorted { $0.streamID < $1.streamID }
        streams.removeAll()
        teardown()
        for stream in ended {
            if let status = stream.status, status >= 200 {
                pool.client.countAnswer()
                stream.finish(.success(stream.response()))
            } else if !stream.written {
                pool.notProcessed(stream, reason: "not written before the connection failed")
            } else if let last = goawayLastStreamID, stream.streamID > last {
                pool.notProcessed(stream, reason: "above the GOAWAY's last-stream-id \(last)")
            } else {
                unknown(stream, "the connection to \(endpoint.description) was lost before the answer (\(error.message)); it may have processed it")
            }
        }
        pool.connectionClosed(self, error: wasOpen ? nil : error)
    }

    /// The connection failed before the server's HTTP/2 layer saw anything of it (its TLS
    /// refused us): its streams were not processed; they go back to the pool unsent, which
    /// fails them with `error` when no other connection can take them.
    func failSetup(_ error: RichPushError) {
        guard phase != .closed else { return }
        closeReason = error.message
        let ended = streams.values.sorted { $0.streamID < $1.streamID }
        streams.removeAll()
        teardown()
        pool.returnUnsent(ended)
        pool.connectionClosed(self, error: error)
    }

    /// Frees the socket, TLS and session; the connection is closed.
    func teardown() {
        phase = .closed
        tick?.cancel()
        tick = nil
        if let registration, fd >= 0 { loop.remove(fd: fd, id: registration) }
        registration = nil
        if let ssl { SSL_free(ssl) }
        ssl = nil
        if fd >= 0 { close(fd) }
        fd = -1
        if let session { nghttp2_session_del(session) }
        session = nil
        outbound = []
        outboundOffset = 0
    }

    // MARK: Timers

    func scheduleTick() {
        tick = loop.schedule(after: HTTP2ConnectionSettings.tickInterval) { [weak self] in self?.onTick() }
    }

    /// Once per tick: connect deadline, request timeouts, PING liveness, linger.
    func onTick() {
        let now = HTTP2Clock.now
        switch phase {
        case .resolving, .connecting, .handshaking:
            if now - startedAt >= UInt64(settings.connectTimeout * 1e9) {
                fail(
                    RichPushError(
                        code: .connectionFailed,
                        message:
                            "cannot connect to \(endpoint.description) within \(Self.format(settings.connectTimeout)) s (\(phase == .handshaking ? "TLS handshake" : phase == .connecting ? "TCP connect" : "name lookup") unfinished); check the host, port and network"
                    ))
                return
            }
        case .open, .draining:
            expireRequests(now: now)
            // Any byte after the PING shows the connection alive, even if a busy server has not
            // reached the PING yet: only a connection silent for the whole timeout is dead.
            if let sent = pingSentAt, lastProgressAt > sent { pingSentAt = nil }
            if let sent = pingSentAt {
                if now - sent >= UInt64(settings.pingTimeout * 1e9) {
                    pool.client.count(\.pingTimeouts)
                    settings.eventLog?("\(endpoint.description): no answer to a PING for \(Self.format(settings.pingTimeout)) s, the connection is dead")
                    fail(
                        RichPushError(
                            code: .connectionFailed,
                            message:
                                "\(endpoint.description) sent nothing for \(Self.format(settings.pingTimeout)) s after a PING (no answer, no acknowledgement): the connection is dead"
                        ))
                    return
                }
            } else if !streams.isEmpty, now - lastProgressAt >= UInt64(settings.pingAfterSilence * 1e9) {
                sendPing(now: now)
            } else if streams.isEmpty, now - lastActivityAt >= UInt64(settings.idlePingInterval * 1e9) {
                sendPing(now: now)
            }
        case .closing:
            if now >= lingerUntil {
                teardown()
                pool.connectionClosed(self, error: nil)
                return
            }
        case .closed:
            return
        }
        scheduleTick()
    }

    func expireRequests(now: UInt64) {
        guard let session else { return }
        let limit = UInt64(settings.requestTimeout * 1e9)
        while timeoutHead < submitted.count {
            let id = submitted[timeoutHead]
            guard let stream = streams[id] else {
                timeoutHead += 1
                continue
            }
            guard now - stream.submittedAt >= limit else { break }
            stream.timedOut = true
            pool.client.count(\.resetsSent)
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, UInt32(NGHTTP2_CANCEL.rawValue))
            timeoutHead += 1
            scheduleFlush()
        }
        if timeoutHead > 1024, timeoutHead * 2 > submitted.count {
            submitted.removeFirst(timeoutHead)
            timeoutHead = 0
        }
    }

    func sendPing(now: UInt64) {
        guard let session else { return }
        pingSentAt = now
        pool.client.count(\.pingsSent)
        _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
        scheduleFlush()
    }

    /// The server's SETTINGS arrived: its stream limit may have changed.
    func settingsChanged() {
        settingsReceived = true
        pool.scheduleDispatch()
    }

    func pingAcknowledged() {
        pingSentAt = nil
        lastActivityAt = HTTP2Clock.now
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    /// An HTTP/2 error code's name (RFC 9113 §7).
    static func errorName(_ code: UInt32) -> String {
        let names = [
            "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR",
            "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
        ]
        return Int(code) < names.count ? names[Int(code)] : "error \(code)"
    }
}
#endif
