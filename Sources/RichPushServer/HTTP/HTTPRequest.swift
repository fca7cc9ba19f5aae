import CMicroHTTPD
import Foundation

/// One request as libmicrohttpd collected it: its line and headers (all the gate sees), then its
/// body of at most the bound the gate chose (what the handler sees).
///
/// Answer it exactly once with `respond(_:)`, from any thread; until then the underlying C
/// request stays alive (its connection is suspended if the handler returned without answering).
public struct HTTPRequest: @unchecked Sendable {
    private let raw: OpaquePointer
    private let onRespond: @Sendable (Int, Double) -> Void

    init(raw: OpaquePointer, onRespond: @escaping @Sendable (Int, Double) -> Void) {
        self.raw = raw
        self.onRespond = onRespond
    }

    /// The method, e.g. `POST`.
    public var method: String { String(cString: rp_request_method(raw)) }

    /// The path without the query string, percent-decoded by libmicrohttpd.
    public var path: String { String(cString: rp_request_path(raw)) }

    /// A header by case-insensitive name (the first one when repeated).
    public func header(_ name: String) -> String? {
        rp_request_header(raw, name).map { String(cString: $0) }
    }

    /// Every occurrence of a header, in order (e.g. two `Content-Length` lines).
    public func headerValues(_ name: String) -> [String] {
        let count = rp_request_header_count(raw, name)
        return (0..<count).compactMap { rp_request_header_at(raw, name, $0).map { String(cString: $0) } }
    }

    /// Connections open on this request's server right now.
    public var serverOpenConnections: Int { Int(rp_request_open_connections(raw)) }

    /// The TCP peer's address (IPv4 dotted or IPv6 text; a reverse proxy's when behind one).
    public var peer: String { String(cString: rp_request_peer(raw)) }

    /// A query-string argument.
    public func query(_ name: String) -> String? {
        rp_request_query(raw, name).map { String(cString: $0) }
    }

    /// The body (empty when too large; see `bodyTooLarge`).
    public var body: Data {
        var length = 0
        guard let bytes = rp_request_body(raw, &length), length > 0 else { return Data() }
        return Data(bytes: bytes, count: length)
    }

    /// Whether the body exceeded the server's bound and was discarded.
    public var bodyTooLarge: Bool { rp_request_body_too_large(raw) != 0 }

    /// Sends the response. Call exactly once.
    ///
    /// - Parameter response: the response.
    public func respond(_ response: HTTPResponse) {
        let seconds = Double(rp_monotonic_ns() &- rp_request_start_ns(raw)) / 1e9
        let status = response.status
        if response.body.isEmpty && response.headers.isEmpty {
            // The common case (202 for a receipt): no body, no headers, no copies.
            onRespond(status, seconds)
            rp_request_respond_empty(raw, UInt32(status))
            return
        }
        let headers =
            response.headers.isEmpty
            ? nil
            : response.headers.map { "\(Self.clean($0.name)): \(Self.clean($0.value))" }.joined(separator: "\n")
        onRespond(status, seconds)
        response.body.withUnsafeBytes { buffer in
            let base = buffer.bindMemory(to: UInt8.self).baseAddress
            rp_request_respond(raw, UInt32(status), response.contentType, base, buffer.count, headers)
        }
    }

    /// Removes CR/LF so a header value cannot split the response.
    private static func clean(_ s: String) -> String {
        String(s.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
    }
}
