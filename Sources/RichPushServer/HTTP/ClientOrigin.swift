import Foundation

/// Who sent a request and how, as far as the server can trust it: the client's address, whether
/// it came over TLS, and the host it was sent to.
///
/// Directly connected clients are what the socket says (never TLS: `richpush serve` speaks plain
/// HTTP; TLS ends at a reverse proxy). Behind a reverse proxy named with `--trusted-proxy`, the
/// proxy's `X-Forwarded-For` (the right-most address that is not itself a trusted proxy),
/// `X-Forwarded-Proto` and `X-Forwarded-Host` are believed; from any other peer those headers are
/// ignored, so a client cannot claim another address to dodge the login throttle.
struct ClientOrigin: Equatable {
    /// The client's address (IPv4 or IPv6 text).
    var address: String
    /// Whether the client's connection used TLS (`X-Forwarded-Proto: https` from a trusted proxy).
    var overTLS: Bool
    /// The `Host` the client addressed (`X-Forwarded-Host` from a trusted proxy), if any.
    var host: String?

    /// Works out the client from the socket peer and, for trusted proxies, the forwarding headers.
    ///
    /// - Parameters:
    ///   - peer: the TCP peer's address.
    ///   - header: the request's header by name (first value).
    ///   - headerValues: every value of a header.
    ///   - trustedProxies: the addresses of trusted reverse proxies (exact text, normalised).
    /// - Returns: the client.
    static func resolve(
        peer: String, header: (String) -> String?, headerValues: (String) -> [String], trustedProxies: Set<String>
    ) -> ClientOrigin {
        let host = header("Host")
        guard trustedProxies.contains(normalized(peer)) else {
            return ClientOrigin(address: peer, overTLS: false, host: host)
        }
        let chain = headerValues("X-Forwarded-For").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let client = chain.reversed().first { !trustedProxies.contains(normalized($0)) } ?? peer
        let proto = headerValues("X-Forwarded-Proto").last?.split(separator: ",").last?.trimmingCharacters(in: .whitespaces).lowercased()
        let forwardedHost = headerValues("X-Forwarded-Host").last?.split(separator: ",").last?.trimmingCharacters(in: .whitespaces)
        return ClientOrigin(address: client, overTLS: proto == "https", host: forwardedHost ?? host)
    }

    /// An address in one canonical text form (`::ffff:1.2.3.4` → `1.2.3.4`, IPv6 compressed and
    /// lower-case); anything unparsable as is.
    static func normalized(_ address: String) -> String {
        var text = address
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return format(v4) }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return address }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            var mapped = in_addr()
            withUnsafeMutableBytes(of: &mapped) { $0.copyBytes(from: bytes[12..<16]) }
            return format(mapped)
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return address }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The key a per-client limit counts under: the IPv4 address, or the IPv6 /64 prefix (one
    /// subscriber usually has a whole /64, so counting single IPv6 addresses would be no limit).
    static func limitKey(_ address: String) -> String {
        let text = normalized(address)
        var v6 = in6_addr()
        guard text.contains(":"), inet_pton(AF_INET6, text, &v6) == 1 else { return text }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        return bytes[0..<8].map { String(format: "%02x", $0) }.joined() + "::/64"
    }

    private static func format(_ address: in_addr) -> String {
        var copy = address
        var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        guard inet_ntop(AF_INET, &copy, &buffer, socklen_t(buffer.count)) != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
