import Foundation

/// One request as the server's endpoints see it: a plain value (no pointer into libmicrohttpd),
/// made in `HTTP/` from the request line, headers and body, or by a test directly.
public struct ServerRequest: Sendable {
    /// The method, e.g. `POST` (`HEAD` as sent; the router answers it as `GET`).
    public var method: String
    /// The path without the query string, percent-decoded.
    public var path: String
    /// Every header in the order received (names as sent; look them up with `header(_:)`).
    public var headers: [(name: String, value: String)]
    /// The query-string arguments (the first value of each name; arguments without `=` left out).
    public var query: [String: String]
    /// The body (empty before admission, and when it was too large; see `bodyTooLarge`).
    public var body: Data
    /// Whether the body exceeded the route's bound and was discarded.
    public var bodyTooLarge: Bool
    /// The TCP peer's address (IPv4 dotted or IPv6 text; a reverse proxy's when behind one).
    public var peer: String
    /// Connections open on the server when the request arrived (for the busy check).
    public var openConnections: Int
    /// The path parameter of the route that matched (`{push_id}`, `{token}`), decoded; set by the router.
    public var pathParameter = ""
    /// The path routes are matched on: as sent, with only unreserved characters decoded
    /// (`RequestTarget`), so that `%2F` inside a push id stays inside its segment. The decoded
    /// `path` when the request was made from one.
    public var routingPath: String
    /// What is wrong with the request-target (`%00` or another control character in the path,
    /// bad percent-encoding, a query argument given twice): the code and the message of the
    /// `400` admission answers with; `nil` when it is sound.
    public var targetProblem: (code: String, message: String)?

    /// Makes a request.
    ///
    /// - Parameters:
    ///   - method: the method.
    ///   - path: the decoded path, without the query string.
    ///   - headers: the headers in order.
    ///   - query: the query-string arguments.
    ///   - body: the body bytes.
    ///   - bodyTooLarge: whether the body was over the bound and dropped.
    ///   - peer: the client's address (default `127.0.0.1`).
    ///   - openConnections: connections open on the server (default 1).
    public init(
        method: String, path: String, headers: [(name: String, value: String)] = [], query: [String: String] = [:], body: Data = Data(),
        bodyTooLarge: Bool = false, peer: String = "127.0.0.1", openConnections: Int = 1
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.query = query
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.peer = peer
        self.openConnections = openConnections
        self.routingPath = path
    }

    /// Makes a request from its request-target as sent (`/v1/pushes/a%2Fb?limit=10`), read
    /// strictly as the HTTP layer reads it (`RequestTarget`).
    ///
    /// - Parameters:
    ///   - method: the method.
    ///   - target: the request-target: the percent-encoded path, then `?` and the query.
    ///   - headers: the headers in order.
    ///   - body: the body bytes.
    ///   - bodyTooLarge: whether the body was over the bound and dropped.
    ///   - peer: the client's address (default `127.0.0.1`).
    ///   - openConnections: connections open on the server (default 1).
    public init(
        method: String, target: String, headers: [(name: String, value: String)] = [], body: Data = Data(), bodyTooLarge: Bool = false,
        peer: String = "127.0.0.1", openConnections: Int = 1
    ) {
        let parsed = RequestTarget(target)
        self.init(
            method: method, path: parsed.path, headers: headers, query: parsed.query, body: body, bodyTooLarge: bodyTooLarge, peer: peer,
            openConnections: openConnections)
        routingPath = parsed.routingPath
        targetProblem = parsed.problem
    }

    /// A header by case-insensitive name (the first one when repeated).
    ///
    /// - Parameter name: the header name.
    /// - Returns: its first value, or `nil`.
    public func header(_ name: String) -> String? {
        headers.first { Self.sameName($0.name, name) }?.value
    }

    /// Every occurrence of a header, in order (e.g. two `Content-Length` lines).
    ///
    /// - Parameter name: the header name (case-insensitive).
    /// - Returns: the values in order.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Header names compared as HTTP does: ASCII letters case-insensitively, byte by byte.
    private static func sameName(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return zip(a.utf8, b.utf8).allSatisfy { x, y in x == y || (x | 0x20 == y | 0x20 && (97...122).contains(x | 0x20)) }
    }

    /// The method routes use: `HEAD` is answered as `GET`.
    var routingMethod: String { method == "HEAD" ? "GET" : method }
}
