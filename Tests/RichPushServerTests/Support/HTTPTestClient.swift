import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 client over a real TCP socket, with keep-alive; for tests only.
///
/// The socket work is blocking (`connect`, `send`, `recv` with a 30 s receive timeout), so it runs
/// on a thread of the client's own: callers `await` each response and never hold a thread of the
/// cooperative pool. Requests on one client run one after another, in order.
final class HTTPTestClient: Sendable {
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]  // lower-cased names
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
                throw HTTPTestError("not a JSON object: \(text)")
            }
            return object
        }
    }

    struct HTTPTestError: Error, Sendable, CustomStringConvertible {
        let description: String
        /// The 30 s receive timeout ran out: the server may still be working on the request.
        var timedOut = false
        init(_ d: String, timedOut: Bool = false) {
            description = d
            self.timedOut = timedOut
        }
    }

    private let connection: Connection
    private let thread: DedicatedThread

    /// A client of 127.0.0.1:`port`, connecting from `source` (another loopback address, to be
    /// another client address for the server) when given.
    init(port: Int, source: String? = nil) {
        connection = Connection(port: port, source: source)
        thread = DedicatedThread(name: "http-test-client-\(port)")
    }

    /// Sends one request and reads the response. Reconnects once if a kept-alive socket was closed.
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: Data = Data()) async throws -> Response {
        let connection = self.connection
        return try await thread.run { try connection.request(method, path, headers: headers, body: body) }
    }

    func post(_ path: String, form: String, headers: [String: String] = [:]) async throws -> Response {
        var h = headers
        h["Content-Type"] = h["Content-Type"] ?? "application/x-www-form-urlencoded"
        return try await request("POST", path, headers: h, body: Data(form.utf8))
    }

    func postJSON(_ path: String, _ json: String, headers: [String: String] = [:]) async throws -> Response {
        var h = headers
        h["Content-Type"] = "application/json"
        return try await request("POST", path, headers: h, body: Data(json.utf8))
    }

    /// Sends raw bytes on a fresh connection and reads one response (for malformed requests).
    func raw(_ bytes: Data) async throws -> Response {
        let connection = self.connection
        return try await thread.run { try connection.raw(bytes) }
    }
}

/// The blocking socket side of `HTTPTestClient`; only ever used on the client's own thread (one
/// job at a time), hence unchecked.
private final class Connection: @unchecked Sendable {
    typealias Response = HTTPTestClient.Response
    typealias HTTPTestError = HTTPTestClient.HTTPTestError

    private let port: Int
    private let source: String?
    private var fd: Int32 = -1
    private var buffer = Data()

    init(port: Int, source: String?) {
        self.port = port
        self.source = source
    }
    deinit { close() }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
        buffer.removeAll()
    }

    private func connect() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPTestError("socket failed") }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound != 0 {
                close()
                throw HTTPTestError("bind to \(source) failed (errno \(errno))")
            }
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 {
            close()
            throw HTTPTestError("connect to 127.0.0.1:\(port) failed (errno \(errno))")
        }
    }

    /// Sends one request and reads the response. Reconnects once if a kept-alive socket was closed.
    ///
    /// Only then: a request on a fresh connection, or one whose answer did not come within the
    /// receive timeout, is not sent again (the server may have it, and a POST must not run twice
    /// because a loaded machine answered late).
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: Data = Data()) throws -> Response {
        let reused = fd >= 0
        do {
            return try attempt(method, path, headers: headers, body: body)
        } catch let error as HTTPTestError where reused && !error.timedOut {
            close()
            return try attempt(method, path, headers: headers, body: body)
        }
    }

    /// Sends raw bytes on a fresh connection and reads one response (for malformed requests).
    func raw(_ bytes: Data) throws -> Response {
        close()
        try connect()
        try send(bytes)
        return try readResponse(method: "POST")
    }

    private func attempt(_ method: String, _ path: String, headers: [String: String], body: Data) throws -> Response {
        if fd < 0 { try connect() }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Data(head.utf8) + body)
        return try readResponse(method: method)
    }

    private func send(_ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n <= 0 { throw HTTPTestError("send failed (errno \(errno))") }
                offset += n
            }
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
            close()
            throw HTTPTestError("no answer within 30 s", timedOut: true)
        }
        if n <= 0 { throw HTTPTestError("connection closed (errno \(errno))") }
        buffer.append(contentsOf: chunk[0..<n])
    }

    private func readResponse(method: String) throws -> Response {
        let separator = Data("\r\n\r\n".utf8)
        var headEnd: Range<Data.Index>?
        while true {
            headEnd = buffer.range(of: separator)
            if headEnd != nil { break }
            try fill()
        }
        guard let end = headEnd else { throw HTTPTestError("no header end") }
        let headText = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
        buffer = Data(buffer[end.upperBound...])
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw HTTPTestError("bad status line") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = method == "HEAD" ? 0 : Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count < length { try fill() }
        let body = Data(buffer.prefix(length))
        buffer = Data(buffer.dropFirst(length))
        if headers["connection"]?.lowercased() == "close" { close() }
        return Response(status: status, headers: headers, body: body)
    }
}
