#if canImport(CCurl) && os(Linux)
import CCurl
import COpenSSL
import Foundation
import RichPushCore

/// HTTP/1.1, or HTTP/2 where the server offers it by ALPN, through libcurl's multi interface on a
/// thread of its own: for the requests that are not the sends to APNs and FCM (those go through
/// `HTTP2Client`): FCM's OAuth2 token requests, webhook deliveries, a test's HTTP/1.1 calls.
///
/// Why libcurl here: these peers are any HTTP server (Google's token endpoint, a team's webhook
/// receiver behind whatever proxy), often HTTP/1.1 only, and libcurl
/// (`libcurl4-openssl-dev`) speaks both versions, with `CURLOPT_CAINFO` and client certificates;
/// Foundation's URLSession on Linux cannot take a CA file.
///
/// One thread owns the multi handle (libcurl handles are not thread-safe); callers hand it
/// requests under a lock and wake it with `curl_multi_wakeup`; each request's result is handed
/// back from that thread when its transfer completes. At most `maxConcurrentStreams` transfers
/// are in libcurl at once, the rest wait in a FIFO queue; at most `maxConnectionsPerHost`
/// connections per host (`CURLMOPT_MAX_HOST_CONNECTIONS`). Redirects are not followed.
///
/// `@unchecked Sendable`: the queue and the flags are behind `lock`; libcurl's handles and the
/// active transfers are the loop thread's only.
public final class CurlHTTPTransport: HTTPTransport, @unchecked Sendable {
    /// How one request ended.
    public enum Outcome: Sendable {
        /// An answer arrived, whatever its status.
        case answered(TransportResponse)
        /// No answer. `sent` says whether the request went out (libcurl wrote it): a request that
        /// never left (no connection, shut down before it went) reached no one.
        case failed(RichPushError, sent: Bool)
    }

    private final class Transfer {
        let request: TransportRequest
        let index: Int
        let batch: Batch
        var easy: UnsafeMutableRawPointer?
        var headerList: UnsafeMutablePointer<curl_slist>?
        var body = Data()
        var bodyLimit = 0
        var bodyTruncated = false
        var headers: [String: String] = [:]

        init(request: TransportRequest, index: Int, batch: Batch) {
            self.request = request
            self.index = index
            self.batch = batch
        }
    }

    /// The outcomes of one call, handed back once the last of them is known; touched only by
    /// the loop thread once queued (and by the caller before, when the transport is shut down).
    private final class Batch {
        var outcomes: [Outcome?]
        var remaining: Int
        let continuation: CheckedContinuation<[Outcome], Never>

        init(count: Int, continuation: CheckedContinuation<[Outcome], Never>) {
            outcomes = Array(repeating: nil, count: count)
            remaining = count
            self.continuation = continuation
        }

        func complete(_ index: Int, _ outcome: Outcome) {
            outcomes[index] = outcome
            remaining -= 1
            if remaining == 0 {
                continuation.resume(returning: outcomes.map { $0 ?? .failed(RichPushError(code: .transport, message: "no result"), sent: false) })
            }
        }
    }

    private static let globalInit: Bool = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK }()

    private let configuration: TransportConfiguration
    /// Replaces a request's URL in error messages (default: `redact(_:)`, which shortens device
    /// tokens); a webhook names its endpoint without user, password or query.
    private let describe: @Sendable (String) -> String
    /// Whether error messages end with what to change (`hint(_:names:)`).
    private let hints: Bool
    /// `NSLock`: guards the queue and the flags, and keeps the multi handle alive for
    /// `curl_multi_wakeup`, called under it (the loop frees the handle only after it has seen
    /// `isShutDown` under it); results are handed back after unlocking.
    private let lock = NSLock()
    private var queue: [Transfer] = []
    private var queueHead = 0
    private var isShutDown = false
    /// The loop thread has freed libcurl's handles and its OpenSSL thread state.
    private var isStopped = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    private var openedConnections = 0
    // The loop thread's own.
    private let multi: UnsafeMutableRawPointer
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]

    /// Starts the transport and its thread.
    ///
    /// - Parameters:
    ///   - configuration: trust (`caFile`), client certificate, `httpVersion`, the bounds
    ///     (`maxConcurrentStreams` transfers at once, `maxConnectionsPerHost`), `connectTimeout`
    ///     and `requestTimeout` (seconds; the request's whole time), `maximumResponseBodyBytes`.
    ///   - describe: what error messages show for a request's URL (default: the URL with a
    ///     device token shortened to its first 8 characters).
    ///   - hints: whether error messages end with what to change, naming
    ///     `configuration.settingNames` (off for a peer the program has no such settings for).
    /// - Throws: `RichPushError` with code `transport` when libcurl cannot start.
    public init(
        configuration: TransportConfiguration = TransportConfiguration(), describe: (@Sendable (String) -> String)? = nil, hints: Bool = true
    ) throws {
        guard Self.globalInit, let multi = curl_multi_init() else {
            throw RichPushError(code: .transport, message: "libcurl could not start (curl_global_init / curl_multi_init failed)")
        }
        self.configuration = configuration
        self.describe = describe ?? { CurlHTTPTransport.redact($0) }
        self.hints = hints
        self.multi = multi
        _ = richpush_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = richpush_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maxConnectionsPerHost))
        _ = richpush_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, configuration.maxConcurrentStreams))
        let thread = Thread { [self] in self.loop() }
        thread.name = "richpush-curl"
        thread.start()
    }

    public var connectionsOpened: Int {
        lock.lock()
        defer { lock.unlock() }
        return openedConnections
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        switch await perform([request]).first {
        case .answered(let response): return response
        case .failed(let error, _): throw error
        case nil: throw RichPushError(code: .transport, message: "no result for the request")
        }
    }

    public func send(batch requests: [TransportRequest]) async -> [Result<TransportResponse, any Error>] {
        await perform(requests).map { outcome in
            switch outcome {
            case .answered(let response): return .success(response)
            case .failed(let error, _): return .failure(error)
            }
        }
    }

    /// Sends the requests at once (within the bounds) and returns how each ended, in order.
    ///
    /// - Parameter requests: the requests.
    /// - Returns: one outcome per request: its answer, or the error and whether it went out.
    public func perform(_ requests: [TransportRequest]) async -> [Outcome] {
        guard !requests.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            let batch = Batch(count: requests.count, continuation: continuation)
            let transfers = requests.enumerated().map { Transfer(request: $1, index: $0, batch: batch) }
            lock.lock()
            if isShutDown {
                lock.unlock()
                for transfer in transfers {
                    batch.complete(transfer.index, .failed(RichPushError(code: .transport, message: "the HTTP transport was shut down"), sent: false))
                }
                return
            }
            queue.append(contentsOf: transfers)
            curl_multi_wakeup(multi)
            lock.unlock()
        }
    }

    /// Marks the transport shut down and wakes its thread; returns at once (callers may be on the
    /// cooperative pool, which must never block). The thread then fails the queued and in-flight
    /// requests with a `transport` error and frees libcurl's handles; later sends fail at once.
    public func shutdown() {
        lock.lock()
        defer { lock.unlock() }
        guard !isShutDown else { return }
        isShutDown = true
        curl_multi_wakeup(multi)
    }

    /// Shuts the transport down and returns once its thread has cut the requests in flight
    /// (their connections closed: a peer that hangs does not hold a shutdown), freed every
    /// libcurl handle and its OpenSSL per-thread state. Call it before the process exits: `exit`
    /// runs OpenSSL's cleanup, which would free what a still-running thread uses.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if isStopped {
                lock.unlock()
                continuation.resume()
                return
            }
            stopWaiters.append(continuation)
            if !isShutDown {
                isShutDown = true
                curl_multi_wakeup(multi)
            }
            lock.unlock()
        }
    }

    // MARK: The loop thread

    private func loop() {
        var running: Int32 = 0
        let bound = max(1, configuration.maxConcurrentStreams)
        while true {
            lock.lock()
            let stopping = isShutDown
            let room = stopping ? 0 : max(0, min(bound - active.count, queue.count - queueHead))
            let starting = queue[queueHead..<(queueHead + room)]
            queueHead += room
            let abandoned = stopping ? queue[queueHead...] : []
            if stopping || queueHead == queue.count || (queueHead > 4096 && queueHead * 2 > queue.count) {
                queue.removeFirst(stopping ? queue.count : queueHead)
                queueHead = 0
            }
            lock.unlock()
            for transfer in abandoned {
                transfer.batch.complete(
                    transfer.index,
                    .failed(RichPushError(code: .transport, message: "the HTTP transport was shut down before the request was sent"), sent: false))
            }
            if stopping {
                for (_, transfer) in active { finish(transfer, code: CURLE_ABORTED_BY_CALLBACK, shutdown: true) }
                active.removeAll()
                curl_multi_cleanup(multi)
                // This thread's OpenSSL state is freed now, not by OpenSSL's thread-exit
                // destructor, which could run at the same time as `OPENSSL_cleanup` in `exit`.
                OPENSSL_thread_stop()
                lock.lock()
                isStopped = true
                let waiters = stopWaiters
                stopWaiters.removeAll()
                lock.unlock()
                for waiter in waiters { waiter.resume() }
                return
            }
            for transfer in starting { start(transfer) }
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle, let transfer = active.removeValue(forKey: easy)
                else { continue }
                finish(transfer, code: message.pointee.data.result, shutdown: false)
            }
            // Requests waiting for a slot that just freed start without a wait in the poll;
            // otherwise sleep until a socket, a new request or shutdown wakes the thread (1 s at most).
            lock.lock()
            let waiting = !isShutDown && queueHead < queue.count && active.count < bound
            lock.unlock()
            if !waiting { curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
    }

    private func start(_ transfer: Transfer) {
        guard let easy = curl_easy_init() else {
            transfer.batch.complete(transfer.index, .failed(RichPushError(code: .transport, message: "curl_easy_init failed (out of memory?)"), sent: false))
            return
        }
        transfer.easy = easy
        let request = transfer.request
        let userdata = Unmanaged.passUnretained(transfer).toOpaque()
        _ = richpush_curl_setopt_string(easy, CURLOPT_URL, request.url)
        _ = richpush_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = richpush_curl_setopt_long(
            easy, CURLOPT_HTTP_VERSION,
            configuration.httpVersion == .http2PriorKnowledge ? Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE) : Int(CURL_HTTP_VERSION_2TLS))
        _ = richpush_curl_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        _ = richpush_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = richpush_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(configuration.connectTimeout * 1000)))
        _ = richpush_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, max(1, Int(configuration.requestTimeout * 1000)))
        if let ca = configuration.caFile { _ = richpush_curl_setopt_string(easy, CURLOPT_CAINFO, ca) }
        if let cert = configuration.clientCertificate {
            _ = richpush_curl_setopt_string(easy, CURLOPT_SSLCERT, cert.certificateFile)
            _ = richpush_curl_setopt_string(easy, CURLOPT_SSLCERTTYPE, cert.type)
            if let key = cert.keyFile { _ = richpush_curl_setopt_string(easy, CURLOPT_SSLKEY, key) }
            if let pass = cert.passphrase { _ = richpush_curl_setopt_string(easy, CURLOPT_KEYPASSWD, pass) }
        }
        switch request.method {
        case "GET": _ = richpush_curl_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case "POST": _ = richpush_curl_setopt_long(easy, CURLOPT_POST, 1)
        default: _ = richpush_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if request.method != "GET" {
            _ = richpush_curl_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            request.body.withUnsafeBytes { raw in
                _ = richpush_curl_setopt_pointer(
                    easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)))
            }
        }
        // "Expect:" off: libcurl would otherwise wait up to a second for "100 Continue" before a
        // body over 1 KiB, which many servers never send.
        var list: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Expect:")
        for (name, value) in request.headers { list = curl_slist_append(list, "\(name): \(value)") }
        transfer.headerList = list
        _ = richpush_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
        transfer.bodyLimit = max(0, configuration.maximumResponseBodyBytes)
        _ = richpush_curl_setopt_write_cb(easy) { ptr, size, count, userdata in
            guard let ptr, let userdata else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            let kept = min(max(0, transfer.bodyLimit - transfer.body.count), size * count)
            if kept > 0 { transfer.body.append(UnsafeRawPointer(ptr).assumingMemoryBound(to: UInt8.self), count: kept) }
            if kept < size * count { transfer.bodyTruncated = true }
            return size * count
        }
        _ = richpush_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, userdata)
        _ = richpush_curl_setopt_header_cb(easy) { ptr, size, count, userdata in
            guard let ptr, let userdata else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: ptr, count: size * count)
            // A new status line (after a 1xx) starts a new header block.
            if bytes.starts(with: Array("HTTP/".utf8)) { transfer.headers.removeAll() }
            if let header = CurlHTTPTransport.parseHeaderLine(bytes) { transfer.headers[header.name] = header.value }
            return size * count
        }
        _ = richpush_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, userdata)
        active[easy] = transfer
        curl_multi_add_handle(multi, easy)
    }

    private func finish(_ transfer: Transfer, code: CURLcode, shutdown: Bool) {
        guard let easy = transfer.easy else { return }
        var status = 0
        var version = 0
        var connects = 0
        var requestSize = 0
        var connectMicroseconds: curl_off_t = 0
        _ = richpush_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        _ = richpush_curl_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        _ = richpush_curl_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        _ = richpush_curl_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &requestSize)
        _ = richpush_curl_getinfo_off(easy, CURLINFO_CONNECT_TIME_T, &connectMicroseconds)
        curl_multi_remove_handle(multi, easy)
        curl_easy_cleanup(easy)
        curl_slist_free_all(transfer.headerList)
        transfer.easy = nil
        transfer.headerList = nil
        lock.lock()
        openedConnections += connects
        lock.unlock()
        // Sent: libcurl wrote the request, or an answer came.
        let sent = requestSize > 0 || status > 0
        let target = "\(transfer.request.method) \(describe(transfer.request.url))"
        let outcome: Outcome
        if shutdown {
            outcome = .failed(RichPushError(code: .transport, message: "no answer: \(target) cut at shutdown"), sent: sent)
        } else if code != CURLE_OK {
            let reason = String(cString: curl_easy_strerror(code))
            outcome = .failed(
                RichPushError(
                    // A timeout before any connection was made is a connection failure, too.
                    code: code == CURLE_OPERATION_TIMEDOUT && connectMicroseconds == 0 ? .connectionFailed : Self.errorCode(code),
                    message: "no answer: \(target) failed: \(reason) (curl \(code.rawValue))\(hints ? Self.hint(code, names: configuration.settingNames) : "")"),
                sent: sent)
        } else {
            var response = TransportResponse(
                status: status, headers: transfer.headers, body: transfer.body, httpVersion: version == Int(CURL_HTTP_VERSION_2_0) ? 2 : 1)
            response.bodyTruncated = transfer.bodyTruncated
            outcome = .answered(response)
        }
        transfer.batch.complete(transfer.index, outcome)
    }
}
#endif
