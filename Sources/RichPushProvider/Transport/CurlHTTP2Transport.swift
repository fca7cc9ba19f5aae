#if canImport(CCurl) && os(Linux)
import CCurl
import COpenSSL
import Foundation
import RichPushCore

/// HTTP/2 to APNs and FCM through libcurl's multi interface, on one dedicated thread.
///
/// Why libcurl and not URLSession: on Linux, Foundation's URLSession speaks HTTP/2 but trusts only
/// the system CA store (no CA file for a test server or a proxy), cannot present a client
/// certificate (APNs certificate auth) and gives no control over multiplexing. libcurl
/// (`libcurl4-openssl-dev`, with nghttp2) gives `CURLOPT_CAINFO`, `CURLOPT_SSLCERT`/`SSLKEY`
/// (PEM and `.p12`), `CURLMOPT_PIPELINING = CURLPIPE_MULTIPLEX` with `CURLOPT_PIPEWAIT`, so that
/// thousands of requests share ONE connection as concurrent streams, and
/// `CURLMOPT_MAX_CONCURRENT_STREAMS` / `CURLMOPT_MAX_HOST_CONNECTIONS` as bounds.
///
/// One thread owns the multi handle (libcurl handles are not thread-safe); callers hand it
/// requests under a lock and wake it with `curl_multi_wakeup`; each request's continuation is
/// resumed from that thread when its transfer completes (async/await on the caller's side).
/// `send(batch:)` queues many requests under one lock and one wakeup and resumes its caller once,
/// when the last of them completes (no task and no thread hop per request). Finished easy handles
/// are reset and reused, and consecutive requests with the same header fields share one header
/// list.
/// The thread also keeps at most `maxConcurrentStreams` transfers in the multi handle; the rest
/// wait in a FIFO queue, so a batch of 100,000 tokens costs a queue entry each, not a stream.
///
/// The server's `SETTINGS_MAX_CONCURRENT_STREAMS` is followed as it changes, on at most
/// `maxConnectionsPerHost` connections (`CURLMOPT_MAX_HOST_CONNECTIONS`; never more to get
/// around the limit): until a host has answered once on its connection, one request per allowed
/// connection is handed to libcurl (Apple starts at 1 and raises the limit after the first
/// answer), then up to `maxConcurrentStreams` (see `HostStreamWindow`).
///
/// A host that accepts requests and answers none is given up as a whole: when a request times
/// out (`requestTimeout`) and nothing at all arrived from its host since that request started,
/// every other request of that host, in flight or queued, fails at once with
/// `connection_failed`, and so does every new one for another `requestTimeout`; a batch against
/// a silent APNs ends within about two request timeouts instead of one timeout per stream.
/// `@unchecked Sendable`: the queue, flags and host windows are behind `lock`; libcurl's handles
/// and the active transfers are the loop thread's only.
public final class CurlHTTP2Transport: HTTPTransport, @unchecked Sendable {
    /// Where a finished transfer's result goes: one caller's continuation, or a slot of a batch.
    private enum Completion {
        case single(CheckedContinuation<TransportResponse, any Error>)
        case batch(Batch, Int)
    }

    /// The results of one `send(batch:)`; touched only by the loop thread once queued.
    private final class Batch {
        var results: [Result<TransportResponse, any Error>?]
        var remaining: Int
        let continuation: CheckedContinuation<[Result<TransportResponse, any Error>], Never>

        init(count: Int, continuation: CheckedContinuation<[Result<TransportResponse, any Error>], Never>) {
            results = Array(repeating: nil, count: count)
            remaining = count
            self.continuation = continuation
        }
    }

    private final class Transfer {
        let request: TransportRequest
        let completion: Completion
        var easy: UnsafeMutableRawPointer?
        var headerList: CurlHeaderList?
        var body = Data()
        var bodyLimit = 0
        var bodyTruncated = false
        var headers: [String: String] = [:]
        /// The `scheme://host:port` of the URL (its `HostStreamWindow`).
        let host: String
        /// When it was handed to libcurl.
        var startedAt = ContinuousClock.now
        /// Where libcurl's opening of a socket for this transfer (a new connection) is noted.
        var sockets: SocketOpenings?

        init(request: TransportRequest, completion: Completion) {
            self.request = request
            self.completion = completion
            host = String(HostStreamWindow.key(of: request.url))
        }

        func complete(_ result: Result<TransportResponse, any Error>) {
            switch completion {
            case .single(let continuation):
                continuation.resume(with: result)
            case .batch(let batch, let index):
                batch.results[index] = result
                batch.remaining -= 1
                if batch.remaining == 0 {
                    batch.continuation.resume(returning: batch.results.map { $0 ?? .failure(RichPushError(code: .transport, message: "no result")) })
                }
            }
        }
    }

    private static let globalInit: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()

    private let configuration: TransportConfiguration
    /// `NSLock`, not `Locked`: besides the fields below it keeps the multi handle alive for
    /// `curl_multi_wakeup`, which is called under it (the loop frees the handle only after seeing
    /// `isShutDown` under it), and continuations are resumed after unlocking.
    private let lock = NSLock()
    private var queue: [Transfer] = []
    private var queueHead = 0
    private var isShutDown = false
    /// The loop thread has freed libcurl's handles and its OpenSSL thread state: from then on it
    /// touches neither library again.
    private var isStopped = false
    /// `close()` callers waiting for `isStopped`; resumed by the loop thread.
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    /// The loop thread is (about to be) blocked in `curl_multi_poll`: a new request must wake it.
    /// Requests that arrive while it runs are picked up without a wakeup, so a burst of sends
    /// costs one wakeup and its frames go out in few `send` calls.
    private var isPolling = false
    private var openedConnections = 0
    // Owned by the loop thread only.
    private let multi: UnsafeMutableRawPointer
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    /// Easy handles of finished transfers, reset and kept for the next ones (saves an init and a
    /// cleanup per request); at most `maxConcurrentStreams`.
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// The header list of the last transfer started, reused while the fields stay the same.
    private var lastHeaderList: CurlHeaderList?
    /// Per host: requests in flight, whether it answered, whether it went silent.
    private var windows: [String: HostStreamWindow] = [:]
    /// The hosts libcurl opened a new connection to since the loop last looked.
    private let sockets = SocketOpenings()

    /// Starts the transport and its thread.
    ///
    /// - Parameter configuration: trust, client certificate, HTTP/2 version and bounds.
    /// - Throws: `RichPushError` with code `transport` when libcurl cannot start.
    public init(configuration: TransportConfiguration = TransportConfiguration()) throws {
        guard Self.globalInit, let multi = curl_multi_init() else {
            throw RichPushError(code: .transport, message: "libcurl could not start (curl_global_init / curl_multi_init failed)")
        }
        self.configuration = configuration
        self.multi = multi
        _ = richpush_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = richpush_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maxConnectionsPerHost))
        // Requests that find every allowed connection full wait in libcurl ("pending") rather
        // than opening another connection.
        _ = richpush_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, configuration.maxConcurrentStreams))
        let thread = Thread { [self] in self.loop() }
        thread.name = "richpush-http2"
        thread.start()
    }

    public var connectionsOpened: Int {
        lock.lock(); defer { lock.unlock() }
        return openedConnections
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await withCheckedThrowingContinuation { continuation in
            enqueue([Transfer(request: request, completion: .single(continuation))])
        }
    }

    public func send(batch requests: [TransportRequest]) async -> [Result<TransportResponse, any Error>] {
        guard !requests.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            let batch = Batch(count: requests.count, continuation: continuation)
            enqueue(requests.enumerated().map { Transfer(request: $1, completion: .batch(batch, $0)) })
        }
    }

    /// Hands transfers to the loop thread under the lock, with at most one wakeup.
    private func enqueue(_ transfers: [Transfer]) {
        lock.lock()
        if isShutDown {
            lock.unlock()
            for transfer in transfers {
                transfer.complete(.failure(RichPushError(code: .transport, message: "the HTTP/2 transport was shut down")))
            }
            return
        }
        queue.append(contentsOf: transfers)
        // Woken under the lock: the loop thread frees the multi handle only after it has seen
        // `isShutDown` under this lock, so the handle is alive here.
        if isPolling {
            isPolling = false
            curl_multi_wakeup(multi)
        }
        lock.unlock()
    }

    /// Marks the transport shut down and wakes its thread; returns at once, without waiting for
    /// the thread (callers may be on the cooperative pool, which must never block). The thread
    /// then fails the queued and in-flight requests with a `transport` error, closes the
    /// connections and frees libcurl's handles; sends after this call fail at once.
    public func shutdown() {
        lock.lock()
        defer { lock.unlock() }
        guard !isShutDown else { return }
        isShutDown = true
        // Under the lock: the loop frees the multi handle only after seeing `isShutDown` under it.
        curl_multi_wakeup(multi)
    }

    /// Shuts the transport down (as `shutdown()`) and returns once its thread has failed the
    /// pending requests, closed the connections, freed every libcurl handle and released its
    /// OpenSSL per-thread state, so that nothing of libcurl or libcrypto runs on that thread any
    /// more. Suspends the caller without blocking a thread.
    ///
    /// Call it before the process exits: `exit` runs OpenSSL's `atexit` cleanup
    /// (`OPENSSL_cleanup`), which frees what a still-running transport thread is using
    /// (connection TLS state, its per-thread error and random state): a crash in libcrypto or
    /// "double free or corruption" at exit, now and then.
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
                // Under the lock: the loop frees the multi handle only after seeing `isShutDown` under it.
                curl_multi_wakeup(multi)
            }
            lock.unlock()
        }
    }

    // MARK: The loop thread

    private func loop() {
        var running: Int32 = 0
        while true {
            lock.lock()
            let stopping = isShutDown
            var starting: [Transfer] = []
            var refused: [Transfer] = []
            let now = ContinuousClock.now
            while queueHead < queue.count, active.count + starting.count < configuration.maxConcurrentStreams {
                let next = queue[queueHead]
                let window = windows[next.host] ?? HostStreamWindow()
                if window.isSilent(at: now) {
                    refused.append(next)
                } else if window.inFlight < window.limit(configuration) {
                    windows[next.host, default: HostStreamWindow()].admit(at: now)
                    starting.append(next)
                } else {
                    break
                }
                queueHead += 1
            }
            if queueHead > 4096, queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            let abandoned: [Transfer] = stopping ? Array(queue[queueHead...]) : []
            if stopping { queue.removeAll(); queueHead = 0 }
            lock.unlock()

            for transfer in refused {
                transfer.complete(.failure(RichPushError(code: .connectionFailed, message: windows[transfer.host]?.silence ?? "no answer")))
            }
            for transfer in abandoned {
                transfer.complete(.failure(RichPushError(code: .transport, message: "the HTTP/2 transport was shut down before the request was sent")))
            }
            if stopping {
                for (_, transfer) in active {
                    finish(transfer, code: CURLE_ABORTED_BY_CALLBACK, shutdown: true)
                }
                active.removeAll()
                for easy in idleHandles { curl_easy_cleanup(easy) }
                idleHandles.removeAll()
                curl_multi_cleanup(multi)
                // This thread's OpenSSL state (error queue, random generator) is freed now, not by
                // OpenSSL's thread-exit destructor, which could run at the same time as
                // `OPENSSL_cleanup` in `exit` on another thread.
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
            for host in sockets.hosts { windows[host, default: HostStreamWindow()].connectionOpened() }
            sockets.hosts.removeAll(keepingCapacity: true)
            var left: Int32 = 0
            var silent: [String] = []
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = active.removeValue(forKey: easy)
                else { continue }
                if finish(transfer, code: message.pointee.data.result, shutdown: false) { silent.append(transfer.host) }
            }
            for host in silent { giveUp(host) }
            lock.lock()
            var more = false
            if queueHead < queue.count && active.count < configuration.maxConcurrentStreams {
                let window = windows[queue[queueHead].host] ?? HostStreamWindow()
                more = window.isSilent(at: ContinuousClock.now) || window.inFlight < window.limit(configuration)
            }
            if !more { isPolling = true }
            lock.unlock()
            if !more {
                curl_multi_poll(multi, nil, 0, 1000, nil)
                lock.lock()
                isPolling = false
                lock.unlock()
            }
        }
    }

    private func start(_ transfer: Transfer) {
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            transfer.complete(.failure(RichPushError(code: .transport, message: "curl_easy_init failed (out of memory?)")))
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
        _ = richpush_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout * 1000))
        _ = richpush_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(configuration.requestTimeout * 1000))
        if let ca = configuration.caFile {
            _ = richpush_curl_setopt_string(easy, CURLOPT_CAINFO, ca)
        }
        if let cert = configuration.clientCertificate {
            _ = richpush_curl_setopt_string(easy, CURLOPT_SSLCERT, cert.certificateFile)
            _ = richpush_curl_setopt_string(easy, CURLOPT_SSLCERTTYPE, cert.type)
            if let key = cert.keyFile { _ = richpush_curl_setopt_string(easy, CURLOPT_SSLKEY, key) }
            if let pass = cert.passphrase { _ = richpush_curl_setopt_string(easy, CURLOPT_KEYPASSWD, pass) }
        }
        switch request.method {
        case "GET":
            _ = richpush_curl_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case "POST":
            _ = richpush_curl_setopt_long(easy, CURLOPT_POST, 1)
        default:
            _ = richpush_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if request.method != "GET" {
            _ = richpush_curl_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            request.body.withUnsafeBytes { raw in
                _ = richpush_curl_setopt_pointer(
                    easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)))
            }
        }
        let headerList: CurlHeaderList
        if let last = lastHeaderList, last.matches(request.headers) {
            headerList = last
        } else {
            headerList = CurlHeaderList(request.headers)
            lastHeaderList = headerList
        }
        transfer.headerList = headerList
        _ = richpush_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList.list)
        transfer.bodyLimit = max(0, configuration.maximumResponseBodyBytes)
        _ = richpush_curl_setopt_write_cb(easy) { ptr, size, count, userdata in
            guard let ptr, let userdata else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            let room = max(0, transfer.bodyLimit - transfer.body.count)
            let kept = min(room, size * count)
            if kept > 0 { transfer.body.append(UnsafeRawPointer(ptr).assumingMemoryBound(to: UInt8.self), count: kept) }
            if kept < size * count { transfer.bodyTruncated = true }
            return size * count
        }
        _ = richpush_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, userdata)
        _ = richpush_curl_setopt_header_cb(easy) { ptr, size, count, userdata in
            guard let ptr, let userdata else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: ptr, count: size * count)
            if let header = CurlHTTP2Transport.parseHeaderLine(bytes) { transfer.headers[header.name] = header.value }
            return size * count
        }
        _ = richpush_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, userdata)
        // A new connection (the first, or after a GOAWAY or a drop) starts at one stream again.
        transfer.sockets = sockets
        _ = richpush_curl_setopt_opensocket_cb(easy) { clientp, _, address in
            guard let clientp, let address else { return CURL_SOCKET_BAD }
            let transfer = Unmanaged<Transfer>.fromOpaque(clientp).takeUnretainedValue()
            transfer.sockets?.hosts.append(transfer.host)
            return richpush_curl_socket_open(address)
        }
        _ = richpush_curl_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, userdata)
        transfer.startedAt = ContinuousClock.now
        active[easy] = transfer
        curl_multi_add_handle(multi, easy)
    }

    /// Fails every other request of a host that answered nothing (see the type's summary):
    /// those in flight and queued now, new ones for another `requestTimeout`.
    private func giveUp(_ host: String) {
        let seconds = configuration.requestTimeout
        let inFlight = active.filter { $0.value.host == host }
        lock.lock()
        let waiting = queue[queueHead...].filter { $0.host == host }
        if !waiting.isEmpty {
            queue = queue[queueHead...].filter { $0.host != host }
            queueHead = 0
        }
        lock.unlock()
        let message =
            "\(host) accepted the connection and the requests but answered none of them in \(Self.format(seconds)) s; gave up the \(inFlight.count + waiting.count) other requests to it at once (no answer at all on the connection), new ones fail for \(Self.format(seconds)) s: check that the server is up and answering, and the network"
        windows[host, default: HostStreamWindow()].silence = message
        windows[host, default: HostStreamWindow()].silentUntil = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        for (easy, transfer) in inFlight {
            active[easy] = nil
            _ = finish(transfer, code: CURLE_OK, shutdown: false, failure: RichPushError(code: .connectionFailed, message: message))
        }
        for transfer in waiting {
            transfer.complete(.failure(RichPushError(code: .connectionFailed, message: message)))
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    /// Completes a transfer (with `failure` instead of its own result when given) and updates
    /// its host's window.
    /// - Returns: whether the host is silent: the transfer timed out on a connection and nothing
    ///   at all arrived from the host since it started.
    @discardableResult
    private func finish(_ transfer: Transfer, code: CURLcode, shutdown: Bool, failure: RichPushError? = nil) -> Bool {
        guard let easy = transfer.easy else { return false }
        var status = 0
        var version = 0
        var connects = 0
        var localPort = 0
        _ = richpush_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        _ = richpush_curl_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        _ = richpush_curl_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        _ = richpush_curl_getinfo_long(easy, CURLINFO_LOCAL_PORT, &localPort)
        var connectMicroseconds: curl_off_t = 0
        _ = richpush_curl_getinfo_off(easy, CURLINFO_CONNECT_TIME_T, &connectMicroseconds)
        curl_multi_remove_handle(multi, easy)
        if !shutdown, idleHandles.count < configuration.maxConcurrentStreams {
            curl_easy_reset(easy)
            idleHandles.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
        transfer.easy = nil
        transfer.headerList = nil
        transfer.sockets = nil
        lock.lock()
        openedConnections += connects
        lock.unlock()
        var window = windows[transfer.host] ?? HostStreamWindow()
        window.inFlight = max(0, window.inFlight - 1)
        var silent = false
        if failure == nil, !shutdown {
            if code == CURLE_OK {
                window.answer(onPort: localPort, at: ContinuousClock.now)
            } else if code == CURLE_OPERATION_TIMEDOUT {
                silent = connectMicroseconds > 0 && (window.lastAnswer.map { $0 < transfer.startedAt } ?? true)
            } else if code != CURLE_HTTP2_STREAM {
                // The connection may be gone: the next one starts at one stream again.
                window.answered = false
            }
        }
        windows[transfer.host] = window
        if let failure {
            transfer.complete(.failure(failure))
        } else if shutdown {
            transfer.complete(.failure(RichPushError(code: .transport, message: "the HTTP/2 transport was shut down while the request was in flight")))
        } else if code != CURLE_OK {
            let reason = String(cString: curl_easy_strerror(code))
            let hint = Self.hint(code, names: configuration.settingNames)
            transfer.complete(
                .failure(
                    RichPushError(
                        // A timeout before any connection was made is a connection failure, too.
                        code: code == CURLE_OPERATION_TIMEDOUT && connectMicroseconds == 0 ? .connectionFailed : Self.errorCode(code),
                        message: "\(transfer.request.method) \(Self.redact(transfer.request.url)) failed: \(reason) (curl \(code.rawValue))\(hint)"
                    )))
        } else {
            var response = TransportResponse(
                status: status, headers: transfer.headers, body: transfer.body,
                httpVersion: version == Int(CURL_HTTP_VERSION_2_0) ? 2 : 1
            )
            response.bodyTruncated = transfer.bodyTruncated
            transfer.complete(.success(response))
        }
        return silent
    }
}
#endif
