#if canImport(CCurl)
import CCurl
import Foundation
@_spi(RichPushInternal) import RichPushCore

/// libcurl's global state, initialised once before the first handle (libcurl requires it).
private let curlGlobalInit: Bool = {
    // CURL_GLOBAL_DEFAULT == CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32 == 3.
    curl_global_init(3) == CURLE_OK
}()

/// The media transport on Linux: libcurl's easy interface, one handle per request, on its own thread.
///
/// Measured on this machine (issue 2): libcurl's write callback stops a transfer at once,
/// `CURLOPT_TIMEOUT_MS` ends drip and hang servers exactly on time, and memory stays flat
/// whatever the body size, where FoundationNetworking's URLSession did none of these.
///
/// Redirects are never followed here (`CURLOPT_FOLLOWLOCATION` 0); `MediaFetcher` follows them,
/// so that its https/ATS check and its 5-hop limit apply to every hop.
@_spi(RichPushInternal)
public struct CurlMediaTransport: MediaTransport {
    /// Rules for the connections a transfer opens (provider-side tools; the extension sets none).
    public struct ConnectionRules: Sendable {
        /// Asked with the request URL's host and the numeric address (e.g. `10.0.0.7`, `::1`)
        /// before each socket is opened; `false` refuses it: no packet is sent to that address.
        public var allowConnection: @Sendable (_ host: String, _ address: String) -> Bool
        /// libcurl `CURLOPT_RESOLVE` entries, `HOST:PORT:ADDRESS` (tests map names to addresses).
        public var resolve: [String]
        /// A PEM file of trust roots used instead of the system's (`CURLOPT_CAINFO`): a private
        /// CA of an intranet or a test; `nil`: the system's.
        public var caFile: String?

        /// Makes rules.
        /// - Parameters:
        ///   - resolve: `CURLOPT_RESOLVE` entries.
        ///   - allowConnection: the address check.
        public init(resolve: [String] = [], allowConnection: @escaping @Sendable (_ host: String, _ address: String) -> Bool) {
            self.resolve = resolve
            self.allowConnection = allowConnection
        }
    }

    /// The `User-Agent` header sent with every request.
    public var userAgent: String
    /// Connection rules; with them, proxy settings from the environment are ignored, so the
    /// address checked is the address connected to.
    public var connectionRules: ConnectionRules?

    /// Makes a libcurl transport.
    /// - Parameters:
    ///   - userAgent: the `User-Agent` value; `nil` for `RichPush/<version>`.
    ///   - connectionRules: checks on every connection (`nil`: none, as in the extension).
    public init(userAgent: String? = nil, connectionRules: ConnectionRules? = nil) {
        self.userAgent = userAgent ?? "RichPush/\(richPushExtensionVersion)"
        self.connectionRules = connectionRules
    }

    public func fetch(_ request: MediaRequest, receiver: any MediaResponseReceiver) async throws {
        let transfer = CurlTransfer(gate: TransferGate(receiver: receiver), rules: connectionRules, host: request.url.host ?? "")
        try await run(transfer) {
            transfer.performGet(url: request.url, timeoutMs: request.timeout.wholeMillisecondsAtLeastOne, userAgent: userAgent)
        }
    }

    public func post(to url: URL, body: Data, contentType: String, timeout: Duration) async throws -> Int {
        let sink = DiscardingReceiver()
        let transfer = CurlTransfer(gate: TransferGate(receiver: sink))
        try await run(transfer) {
            transfer.performPost(
                url: url, body: body, contentType: contentType,
                timeoutMs: timeout.wholeMillisecondsAtLeastOne, userAgent: userAgent
            )
        }
        return sink.statusCode ?? 0
    }

    /// Runs a blocking libcurl transfer on a dedicated thread and waits for its gate.
    private func run(_ transfer: CurlTransfer, _ body: @escaping @Sendable () -> Void) async throws {
        guard curlGlobalInit else { throw MediaTransportError(.network, "curl_global_init failed") }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                transfer.gate.install(c)
                let thread = Thread(block: body)
                thread.name = "richpush.curl"
                thread.start()
            }
        } onCancel: {
            transfer.cancel()
        }
    }
}

/// One libcurl easy transfer and the state its C callbacks reach through `userdata`.
final class CurlTransfer: @unchecked Sendable {
    let gate: TransferGate
    private let rules: CurlMediaTransport.ConnectionRules?
    private let host: String
    private let cancelled = Locked(false)
    // Touched only by the transfer's own thread (inside curl_easy_perform's callbacks).
    private var handle: UnsafeMutableRawPointer?
    private var headers: [String: String] = [:]

    init(gate: TransferGate, rules: CurlMediaTransport.ConnectionRules? = nil, host: String = "") {
        self.gate = gate
        self.rules = rules
        self.host = host
    }

    /// Asks the transfer to stop (task cancelled): the waiting task resumes at once.
    func cancel() {
        cancelled.withLock { $0 = true }
        gate.finish(.failure(MediaTransportError(.cancelled, "the request was cancelled")))
    }

    private var shouldAbort: Bool {
        cancelled.withLock { $0 } || gate.isFinished
    }

    func performGet(url: URL, timeoutMs: Int, userAgent: String) {
        // Raw bytes: the size limits and the sniffing apply to the bytes received. libcurl decodes
        // nothing unless CURLOPT_ACCEPT_ENCODING is set (it is not); the header tells the server.
        var list: UnsafeMutablePointer<curl_slist>?
        list = curl_slist_append(list, "Accept-Encoding: identity")
        defer { curl_slist_free_all(list) }
        perform(url: url, timeoutMs: timeoutMs, userAgent: userAgent) { h in
            richpush_curl_setopt_slist(h, CURLOPT_HTTPHEADER, list)
        }
    }

    func performPost(url: URL, body: Data, contentType: String, timeoutMs: Int, userAgent: String) {
        var list: UnsafeMutablePointer<curl_slist>?
        list = curl_slist_append(list, "Content-Type: \(contentType)")
        defer { curl_slist_free_all(list) }
        perform(url: url, timeoutMs: timeoutMs, userAgent: userAgent) { h in
            var rc = richpush_curl_setopt_long(h, CURLOPT_POST, 1)
            if rc == CURLE_OK { rc = richpush_curl_setopt_long(h, CURLOPT_POSTFIELDSIZE, body.count) }
            if rc == CURLE_OK {
                rc = body.withUnsafeBytes { raw -> CURLcode in
                    // COPYPOSTFIELDS copies the bytes, so the pointer need not outlive this call.
                    richpush_curl_setopt_pointer(h, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress))
                }
            }
            if rc == CURLE_OK { rc = richpush_curl_setopt_slist(h, CURLOPT_HTTPHEADER, list) }
            return rc
        }
    }

    private func perform(url: URL, timeoutMs: Int, userAgent: String, configure: (UnsafeMutableRawPointer) -> CURLcode) {
        guard let h = curl_easy_init() else {
            gate.finish(.failure(MediaTransportError(.network, "curl_easy_init failed")))
            return
        }
        handle = h
        defer {
            curl_easy_cleanup(h)
            handle = nil
        }
        var resolve: UnsafeMutablePointer<curl_slist>?
        for entry in rules?.resolve ?? [] { resolve = curl_slist_append(resolve, entry) }
        defer { curl_slist_free_all(resolve) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let me = Unmanaged.passUnretained(self).toOpaque()
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            var rc = CURLE_OK
            func set(_ r: CURLcode) { if rc == CURLE_OK { rc = r } }
            set(richpush_curl_setopt_string(h, CURLOPT_URL, url.absoluteString))
            set(richpush_curl_setopt_long(h, CURLOPT_FOLLOWLOCATION, 0))
            set(richpush_curl_setopt_long(h, CURLOPT_NOSIGNAL, 1))
            set(richpush_curl_setopt_long(h, CURLOPT_TIMEOUT_MS, timeoutMs))
            set(richpush_curl_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, timeoutMs))
            set(richpush_curl_setopt_string(h, CURLOPT_PROTOCOLS_STR, "http,https"))
            set(richpush_curl_setopt_string(h, CURLOPT_USERAGENT, userAgent))
            set(richpush_curl_setopt_pointer(h, CURLOPT_ERRORBUFFER, buffer.baseAddress))
            set(richpush_curl_setopt_header_cb(h, curlHeaderCallback))
            set(richpush_curl_setopt_pointer(h, CURLOPT_HEADERDATA, me))
            set(richpush_curl_setopt_write_cb(h, curlWriteCallback))
            set(richpush_curl_setopt_pointer(h, CURLOPT_WRITEDATA, me))
            set(richpush_curl_setopt_long(h, CURLOPT_NOPROGRESS, 0))
            set(richpush_curl_setopt_xferinfo_cb(h, curlProgressCallback))
            set(richpush_curl_setopt_pointer(h, CURLOPT_XFERINFODATA, me))
            if rules != nil {
                set(richpush_curl_setopt_string(h, CURLOPT_NOPROXY, "*"))
                set(richpush_curl_setopt_opensocket_cb(h, curlOpenSocketCallback))
                set(richpush_curl_setopt_pointer(h, CURLOPT_OPENSOCKETDATA, me))
                if resolve != nil { set(richpush_curl_setopt_slist(h, CURLOPT_RESOLVE, resolve)) }
                if let ca = rules?.caFile { set(richpush_curl_setopt_string(h, CURLOPT_CAINFO, ca)) }
            }
            set(configure(h))
            guard rc == CURLE_OK else { return rc }
            return curl_easy_perform(h)
        }
        if gate.stoppedByReceiver { return }  // the receiver stopped it: already finished with success
        switch code {
        case CURLE_OK:
            gate.finish(.success(()))
        case CURLE_OPERATION_TIMEDOUT:
            gate.finish(.failure(MediaTransportError(.timeout, "no complete response within \(timeoutMs) ms")))
        case CURLE_ABORTED_BY_CALLBACK where cancelled.withLock({ $0 }):
            gate.finish(.failure(MediaTransportError(.cancelled, "the request was cancelled")))
        default:
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let summary = String(cString: curl_easy_strerror(code))
            gate.finish(.failure(MediaTransportError(.network, detail.isEmpty ? summary : "\(summary): \(detail)")))
        }
    }

    /// One header line (status line, field, or the blank line that ends the head).
    fileprivate func header(_ line: UnsafeRawBufferPointer) -> Bool {
        if shouldAbort { return false }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            headers = [:]
            return true
        }
        if text.isEmpty {
            var status = 0
            if let handle { _ = richpush_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) }
            if status < 200 && status >= 100 {  // 100 Continue and friends: another head follows
                headers = [:]
                return true
            }
            return gate.forward(head: MediaResponseHead(statusCode: status, headers: headers))
        }
        if let colon = text.firstIndex(of: ":") {
            let name = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return true
    }

    fileprivate func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if shouldAbort { return false }
        return gate.forward(body: bytes)
    }

    fileprivate func progress() -> Bool {
        !shouldAbort
    }

    /// Opens a socket for `address` unless the connection rules refuse it.
    fileprivate func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        if let rules {
            var text = [CChar](repeating: 0, count: 64)
            guard richpush_curl_sockaddr_text(address, &text, text.count) == 0 else { return CURL_SOCKET_BAD }
            let numeric = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard rules.allowConnection(host, numeric) else { return CURL_SOCKET_BAD }
        }
        return richpush_curl_socket_open(address)
    }
}

private let curlOpenSocketCallback: richpush_curl_opensocket_cb = { userdata, _, address in
    guard let userdata, let address else { return CURL_SOCKET_BAD }
    return Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue().openSocket(address)
}

private let curlHeaderCallback: richpush_curl_data_cb = { ptr, size, count, userdata in
    guard let ptr, let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let n = size * count
    return transfer.header(UnsafeRawBufferPointer(start: ptr, count: n)) ? n : 0
}

private let curlWriteCallback: richpush_curl_data_cb = { ptr, size, count, userdata in
    guard let ptr, let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let n = size * count
    return transfer.body(UnsafeRawBufferPointer(start: ptr, count: n)) ? n : 0
}

private let curlProgressCallback: richpush_curl_xferinfo_cb = { userdata, _, _, _, _ in
    guard let userdata else { return 1 }
    return Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue().progress() ? 0 : 1
}
#endif
