import RichPushCore

/// Where an HTTP/2 request goes, read from its absolute URL: `https://host[:port]` (TLS, ALPN
/// `h2`) or `http://host[:port]` (cleartext HTTP/2 by prior knowledge, "h2c": test servers).
struct HTTP2Endpoint: Hashable, Sendable {
    /// `https` or `http`.
    var scheme: String
    /// The host name or IP literal, without brackets.
    var host: String
    /// The TCP port.
    var port: Int
    /// `:authority`: host (in brackets for IPv6) and the port when it is not the scheme's default.
    var authority: String

    /// Whether connections use TLS.
    var usesTLS: Bool { scheme == "https" }

    /// Splits an absolute URL into its endpoint and `:path` (with the query).
    ///
    /// - Parameter url: `scheme://authority/path?query`.
    /// - Returns: the endpoint and the path (`/` when the URL has none).
    /// - Throws: `RichPushError` `invalid_request` for a URL that is not `http(s)://host…`.
    static func split(_ url: String) throws -> (endpoint: HTTP2Endpoint, path: String) {
        let utf8 = url.utf8
        guard let schemeEnd = url.range(of: "://") else {
            throw RichPushError(code: .invalidRequest, message: "'\(url)' is not an absolute http:// or https:// URL")
        }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else {
            throw RichPushError(code: .invalidRequest, message: "'\(url)': only https:// (HTTP/2 over TLS) and http:// (HTTP/2 without TLS) are supported")
        }
        let rest = url[schemeEnd.upperBound...]
        let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = String(rest[..<slash])
        var path = String(rest[slash...])
        if path.isEmpty { path = "/" } else if path.first == "?" { path = "/" + path }
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        var host = authority
        var port = scheme == "https" ? 443 : 80
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw RichPushError(code: .invalidRequest, message: "'\(url)': an IPv6 address in brackets has no closing ]")
            }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()), (1...65535).contains(value) else {
                    throw RichPushError(code: .invalidRequest, message: "'\(url)': the port is not a number from 1 to 65535")
                }
                port = value
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let value = Int(authority[authority.index(after: colon)...]), (1...65535).contains(value) else {
                throw RichPushError(code: .invalidRequest, message: "'\(url)': the port is not a number from 1 to 65535")
            }
            port = value
        }
        guard !host.isEmpty, utf8.count < 8192 else {
            throw RichPushError(code: .invalidRequest, message: "'\(url)' has no host")
        }
        let defaultPort = scheme == "https" ? 443 : 80
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let shown = port == defaultPort ? hostPart : "\(hostPart):\(port)"
        return (HTTP2Endpoint(scheme: scheme, host: host.lowercased(), port: port, authority: shown.lowercased()), path)
    }

    /// `scheme://authority`, for messages.
    var description: String { "\(scheme)://\(authority)" }
}
