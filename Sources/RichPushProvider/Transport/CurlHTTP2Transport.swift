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
/// `@unchecked Sendable`: what callers touch is behind `shared`'s lock; the multi handle, the
/// active transfers, the idle handles and the last header list are touched by the loop thread only.
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

    /// A `curl_slist` of request headers, shared by every transfer that sends the same header
    /// fields (an APNs batch: same topic, push type and provider token), freed with its last user.
    private final class HeaderList {
        let fields: [(name: String, value: String)]
        let list: UnsafeMutablePointer<curl_slist>?

        init(_ fields: [(name: String, value: String)]) {
            self.fields = fields
            var list: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Expect:")
            for (name, value) in fields { list = curl_slist_append(list, "\(name): \(value)") }
            self.list = list
        }

        func matches(_ other: [(name: String, value: String)]) -> Bool {
            fields.count == other.count && zip(fields, other).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        }

        deinit { curl_slist_free_all(list) }
    }

    private final class Transfer {
        let request: TransportRequest
        let completion: Completion
        var easy: UnsafeMutableRawPointer?
        var headerList: HeaderList?
        var body = Data()
        var bodyLimit = 0
        var bodyTruncated = false
        var headers: [String: String] = [:]

        init(request: TransportRequest, completion: Completion) {
            self.request = request
            self.completion = completion
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

    /// What callers and the loop thread share, behind one lock.
    private struct Shared {
        var queue: [Transfer] = []
        var queueHead = 0
        var isShutDown = false
        /// The loop thread has freed libcurl's handles and its OpenSSL thread state: from then on it
        /// touches neither library again.
        var isStopped = false
        /// `close()` callers waiting for `isStopped`; resumed by the loop thread.
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
        /// The loop thread is (about to be) blocked in `curl_multi_poll`: a new request must wake it.
        /// Requests that arrive while it runs are picked up without a wakeup, so a burst of sends
        /// costs one wakeup and its frames go out in few `send` calls.
        var isPolling = false
        var openedConnections = 0
    }

    private let configuration: TransportConfiguration
    private let shared = Locked(Shared())
    // Owned by the loop thread only.
    private let multi: UnsafeMutableRawPointer
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    /// Easy handles of finished transfers, reset and kept for the next ones (saves an init and a
    /// cleanup per request); at most `maxConcurrentStreams`.
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// The header list of the last transfer started, reused while the fields stay the same.
    private var lastHeaderList: HeaderList?

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
        _ = richpush_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, configuration.maxConcurrentStreams))
        let thread = Thread { [self] in self.loop() }
        thread.name = "richpush-http2"
        thread.start()
    }

    public var connectionsOpened: Int {
        shared.withLock { $0.openedConnections }
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
        let accepted = shared.withLock { shared in
            guard !shared.isShutDown else { return false }
            shared.queue.append(contentsOf: transfers)
            // Woken under the lock: the loop thread frees the multi handle only after it has seen
            // `isShutDown` under this lock, so the handle is alive here.
            if shared.isPolling {
                shared.isPolling = false
                curl_multi_wakeup(multi)
            }
            return true
        }
        guard !accepted else { return }
        for transfer in transfers {
            transfer.complete(.failure(RichPushError(code: .transport, message: "the HTTP/2 transport was shut down")))
        }
    }

    /// Marks the transport shut down and wakes its thread; returns at once, without waiting for
    /// the thread (callers may be on the cooperative pool, which must never block). The thread
    /// then fails the queued and in-flight requests with a `transport` error, closes the
    /// connections and frees libcurl's handles; sends after this call fail at once.
    public func shutdown() {
        shared.withLock { shared in
            guard !shared.isShutDown else { return }
            shared.isShutDown = true
            // Under the lock: the loop frees the multi handle only after seeing `isShutDown` under it.
            curl_multi_wakeup(multi)
        }
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
            let stopped = shared.withLock { shared in
                if shared.isStopped { return true }
                shared.stopWaiters.append(continuation)
                if !shared.isShutDown {
                    shared.isShutDown = true
                    // Under the lock: the loop frees the multi handle only after seeing `isShutDown` under it.
                    curl_multi_wakeup(multi)
                }
                return false
            }
            if stopped { continuation.resume() }
        }
    }

    // MARK: The loop thread

    private func loop() {
        var running: Int32 = 0
        while true {
            let room = max(0, configuration.maxConcurrentStreams - active.count)
            let (stopping, starting, abandoned) = shared.withLock { shared -> (Bool, [Transfer], [Transfer]) in
                let stopping = shared.isShutDown
                var starting: [Transfer] = []
                while starting.count < room, shared.queueHead < shared.queue.count {
                    starting.append(shared.queue[shared.queueHead])
                    shared.queueHead += 1
                }
                if shared.queueHead > 4096, shared.queueHead * 2 > shared.queue.count {
                    shared.queue.removeFirst(shared.queueHead)
                    shared.queueHead = 0
                }
                let abandoned: [Transfer] = stopping ? Array(shared.queue[shared.queueHead...]) : []
                if stopping {
                    shared.queue.removeAll()
                    shared.queueHead = 0
                }
                return (stopping, starting, abandoned)
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
                let waiters = shared.withLock { shared in
                    shared.isStopped = true
                    defer { shared.stopWaiters.removeAll() }
                    return shared.stopWaiters
                }
                for waiter in waiters { waiter.resume() }
                return
            }
            for transfer in starting { start(transfer) }

            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = active.removeValue(forKey: easy)
                else { continue }
                finish(transfer, code: message.pointee.data.result, shutdown: false)
            }
            let roomLeft = active.count < configuration.maxConcurrentStreams
            let more = shared.withLock { shared in
                let more = roomLeft && shared.queueHead < shared.queue.count
                if !more { shared.isPolling = true }
                return more
            }
            if !more {
                curl_multi_poll(multi, nil, 0, 1000, nil)
                shared.withLock { $0.isPolling = false }
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
        let headerList: HeaderList
        if let last = lastHeaderList, last.matches(request.headers) {
            headerList = last
        } else {
            headerList = HeaderList(request.headers)
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
        active[easy] = transfer
        curl_multi_add_handle(multi, easy)
    }

    private func finish(_ transfer: Transfer, code: CURLcode, shutdown: Bool) {
        guard let easy = transfer.easy else { return }
        var status = 0
        var version = 0
        var connects = 0
        _ = richpush_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        _ = richpush_curl_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        _ = richpush_curl_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
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
        shared.withLock { $0.openedConnections += connects }
        if shutdown {
            transfer.complete(.failure(RichPushError(code: .transport, message: "the HTTP/2 transport was shut down while the request was in flight")))
        } else if code != CURLE_OK {
            let reason = String(cString: curl_easy_strerror(code))
            transfer.complete(
                .failure(
                    RichPushError(
                        // A timeout before any connection was made is a connection failure, too.
                        code: code == CURLE_OPERATION_TIMEDOUT && connectMicroseconds == 0 ? .connectionFailed : Self.errorCode(code),
                        message:
                            "\(transfer.request.method) \(Self.redact(transfer.request.url)) failed: \(reason) (curl \(code.rawValue))\(Self.hint(code, names: configuration.settingNames))"
                    )))
        } else {
            var response = TransportResponse(
                status: status, headers: transfer.headers, body: transfer.body,
                httpVersion: version == Int(CURL_HTTP_VERSION_2_0) ? 2 : 1
            )
            response.bodyTruncated = transfer.bodyTruncated
            transfer.complete(.success(response))
        }
    }

    /// Splits `Name: value\r\n` into a lower-cased name and a trimmed value (bytes, no Foundation:
    /// this runs for every response header).
    private static func parseHeaderLine(_ bytes: UnsafeRawBufferPointer) -> (name: String, value: String)? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            !(bytes.count >= 5 && bytes[0] == UInt8(ascii: "H") && bytes[1] == UInt8(ascii: "T") && bytes[4] == UInt8(ascii: "/"))
        else { return nil }
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
        var start = colon + 1
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        let name = String(decoding: bytes[0..<colon].map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
        return (name, String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
    }

    private static func redact(_ url: String) -> String {
        // The device token is in the path; show only its start.
        guard let range = url.range(of: "/3/device/") else { return url }
        let token = url[range.upperBound...]
        return String(url[..<range.upperBound]) + token.prefix(8) + (token.count > 8 ? "…" : "")
    }

    /// `tls_configuration` for what retrying cannot change, `connection_failed` for no connection.
    private static func errorCode(_ code: CURLcode) -> RichPushError.Code {
        switch code {
        case CURLE_SSL_CERTPROBLEM, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .tlsConfiguration
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectionFailed
        default:
            return .transport
        }
    }

    private static func hint(_ code: CURLcode, names: TransportSettingNames) -> String {
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE:
            return "; the server's certificate is not trusted: for a test server or proxy pass its CA with \(names.caFile)"
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST:
            return "; check the host and port (\(names.url)) and the network"
        case CURLE_OPERATION_TIMEDOUT:
            return "; the server did not answer in time"
        case CURLE_SSL_CERTPROBLEM:
            return
                "; the client certificate cannot be used: \(names.certificate) must be the APNs certificate as .p12, or PEM with its key (\(names.certificateKey)), and the right passphrase"
        default:
            return ""
        }
    }
}
#endif
