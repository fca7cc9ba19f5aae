#if canImport(CCurl) && os(Linux)
import CCurl
import COpenSSL
import Foundation
@_spi(RichPushInternal) import RichPushCore

/// The HTTP client of ONE webhook endpoint: libcurl's multi interface on a thread of its own,
/// with its own connections (at most `connections`: HTTP/1.1 receivers get that many requests at
/// once, HTTP/2 ones share them as streams), so a receiver that hangs holds only its own
/// endpoint's deliveries: other endpoints, on the same host or not, have their own client.
///
/// Redirects are not followed. Each result says whether the request was sent (libcurl wrote the
/// request, or an answer came): a delivery that never left (no connection, the client shut down
/// before it went out) is not an attempt. Error texts name the endpoint by its redacted URL
/// (`WebhookEndpoint.displayURL`: no user, password or query), never the configured one.
final class WebhookHTTPClient: @unchecked Sendable {
    /// One request's outcome.
    enum Outcome: Sendable {
        /// An HTTP answer: status, the `Location` header, up to 4 KB of the body.
        case answered(status: Int, location: String?, body: Data)
        /// No answer: why (built from the redacted URL), and whether the request went out.
        case failed(message: String, sent: Bool)
    }

    /// One request to send.
    struct Request: Sendable {
        var headers: [(name: String, value: String)]
        var body: Data
    }

    private final class Transfer {
        let request: Request
        let index: Int
        let batch: Batch
        var easy: UnsafeMutableRawPointer?
        var headerList: UnsafeMutablePointer<curl_slist>?
        var body = Data()
        var location: String?

        init(request: Request, index: Int, batch: Batch) {
            self.request = request
            self.index = index
            self.batch = batch
        }
    }

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
                continuation.resume(returning: outcomes.map { $0 ?? .failed(message: "no result", sent: false) })
            }
        }
    }

    private static let globalInit: Bool = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK }()
    /// The most response body bytes kept (for the error text).
    static let maximumBodyBytes = 4_096

    private let url: String
    private let displayURL: String
    private let timeoutMs: Int
    private let connectTimeoutMs: Int
    /// `NSLock`: guards the queue and the flags, and keeps the multi handle alive for
    /// `curl_multi_wakeup` (freed by the thread only after it saw `isShutDown` under it).
    private let lock = NSLock()
    private var queue: [Transfer] = []
    private var isShutDown = false
    private var isStopped = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    // The thread's own.
    private let multi: UnsafeMutableRawPointer
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]

    /// Starts the client's thread.
    ///
    /// - Parameters:
    ///   - endpoint: the receiver (its URL; `displayURL` for messages).
    ///   - timeoutSeconds: one delivery's whole time (connect included).
    ///   - connections: the most connections to the receiver.
    /// - Throws: `RichPushError` `transport` when libcurl cannot start.
    init(endpoint: WebhookEndpoint, timeoutSeconds: Double, connections: Int) throws {
        guard Self.globalInit, let multi = curl_multi_init() else {
            throw RichPushError(code: .transport, message: "libcurl could not start (curl_global_init / curl_multi_init failed)")
        }
        self.multi = multi
        url = endpoint.url
        displayURL = endpoint.displayURL
        timeoutMs = max(1, Int(timeoutSeconds * 1000))
        connectTimeoutMs = max(1, Int(min(timeoutSeconds, 10) * 1000))
        _ = richpush_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = richpush_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, connections))
        _ = richpush_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(1, connections))
        let thread = Thread { [self] in self.loop() }
        thread.name = "richpush-webhook"
        thread.start()
    }

    /// POSTs the requests at once and returns each outcome, in order.
    ///
    /// - Parameter requests: the requests.
    /// - Returns: one outcome per request.
    func post(_ requests: [Request]) async -> [Outcome] {
        guard !requests.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            let batch = Batch(count: requests.count, continuation: continuation)
            let transfers = requests.enumerated().map { Transfer(request: $1, index: $0, batch: batch) }
            lock.lock()
            if isShutDown {
                lock.unlock()
                for transfer in transfers { transfer.batch.complete(transfer.index, .failed(message: "the webhook client is shut down", sent: false)) }
                return
            }
            queue += transfers
            curl_multi_wakeup(multi)
            lock.unlock()
        }
    }

    /// Cuts the requests in flight (their connections closed: a hanging receiver does not hold a
    /// shutdown) and stops the thread; returns once nothing of libcurl runs on it any more.
    func close() async {
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

    private func loop() {
        var running: Int32 = 0
        while true {
            lock.lock()
            let stopping = isShutDown
            let starting = stopping ? [] : queue
            let abandoned = stopping ? queue : []
            queue.removeAll()
            lock.unlock()
            for transfer in abandoned { transfer.batch.complete(transfer.index, .failed(message: "the webhook client shut down", sent: false)) }
            if stopping {
                for (_, transfer) in active { finish(transfer, code: CURLE_ABORTED_BY_CALLBACK, shutdown: true) }
                active.removeAll()
                curl_multi_cleanup(multi)
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
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    private func start(_ transfer: Transfer) {
        guard let easy = curl_easy_init() else {
            transfer.batch.complete(transfer.index, .failed(message: "curl_easy_init failed (out of memory?)", sent: false))
            return
        }
        transfer.easy = easy
        let userdata = Unmanaged.passUnretained(transfer).toOpaque()
        _ = richpush_curl_setopt_string(easy, CURLOPT_URL, url)
        _ = richpush_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        // HTTP/2 over TLS when the receiver offers it (ALPN), HTTP/1.1 otherwise.
        _ = richpush_curl_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        _ = richpush_curl_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        _ = richpush_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = richpush_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMs)
        _ = richpush_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeoutMs)
        _ = richpush_curl_setopt_long(easy, CURLOPT_POST, 1)
        _ = richpush_curl_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(transfer.request.body.count))
        transfer.request.body.withUnsafeBytes { raw in
            _ = richpush_curl_setopt_pointer(
                easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)))
        }
        var list: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Expect:")
        for (name, value) in transfer.request.headers { list = curl_slist_append(list, "\(name): \(value)") }
        transfer.headerList = list
        _ = richpush_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
        _ = richpush_curl_setopt_write_cb(easy) { ptr, size, count, userdata in
            guard let ptr, let userdata else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            let kept = min(max(0, WebhookHTTPClient.maximumBodyBytes - transfer.body.count), size * count)
            if kept > 0 { transfer.body.append(UnsafeRawPointer(ptr).assumingMemoryBound(to: UInt8.self), count: kept) }
            return size * count
        }
        _ = richpush_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, userdata)
        _ = richpush_curl_setopt_header_cb(easy) { ptr, size, count, userdata in
            guard let ptr, let userdata else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            let line = String(decoding: UnsafeRawBufferPointer(start: ptr, count: size * count), as: UTF8.self)
            if let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "location" {
                transfer.location = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return size * count
        }
        _ = richpush_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, userdata)
        active[easy] = transfer
        curl_multi_add_handle(multi, easy)
    }

    private func finish(_ transfer: Transfer, code: CURLcode, shutdown: Bool) {
        guard let easy = transfer.easy else { return }
        var status = 0
        var requestSize = 0
        _ = richpush_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        _ = richpush_curl_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &requestSize)
        curl_multi_remove_handle(multi, easy)
        curl_easy_cleanup(easy)
        curl_slist_free_all(transfer.headerList)
        transfer.easy = nil
        transfer.headerList = nil
        // Sent: libcurl wrote the request (or an answer came).
        let sent = requestSize > 0 || status > 0
        let outcome: Outcome
        if shutdown {
            outcome = .failed(message: "no answer: POST \(displayURL) cut at shutdown", sent: sent)
        } else if code != CURLE_OK {
            let reason = String(cString: curl_easy_strerror(code))
            outcome = .failed(message: "no answer: POST \(displayURL) failed: \(reason) (curl \(code.rawValue))", sent: sent)
        } else {
            outcome = .answered(status: status, location: transfer.location, body: transfer.body)
        }
        transfer.batch.complete(transfer.index, outcome)
    }
}
#endif
