import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which addresses a provider-side media fetch may connect to: no server-side request forgery.
///
/// The provider fetches URLs it is given (a payload's media URL, a redirect's `Location`), so by
/// default it refuses every address that is not on the public internet (IANA's special-purpose
/// registries): IPv4 loopback (127/8), private (10/8, 172.16/12, 192.168/16), carrier-grade NAT
/// (100.64/10), link-local (169.254/16, where cloud metadata lives at 169.254.169.254), "this
/// network" (0/8), IETF (192.0.0/24), documentation (192.0.2/24, 198.51.100/24, 203.0.113/24),
/// the 6to4 relay (192.88.99/24), benchmarking (198.18/15), multicast and reserved; IPv6
/// unspecified and loopback, every address outside global unicast (2000::/3: link-local
/// fe80::/10, site-local fec0::/10, unique-local fc00::/7, discard 100::/64, multicast ff00::/8,
/// IPv4-compatible ::/96, IPv4-translated ::ffff:0:0:0/96, local-use NAT64 64:ff9b:1::/48, …),
/// and inside it the IETF assignments (2001::/23: Teredo, ORCHID, benchmarking), documentation
/// (2001:db8::/32, 3fff::/20); IPv4 inside IPv6 (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96,
/// 6to4 2002::/16) is judged by the IPv4 address. The check runs on the numeric address of
/// every connection (libcurl's open-socket hook), so a name that resolves to a refused address
/// — directly or after a DNS change between two hops — is refused before any packet is sent;
/// the refusal of a name does not say what it resolved to.
public struct MediaAddressPolicy: Sendable, Equatable {
    /// Hosts (names or literal addresses, lower-cased) opened for tests and intranets: connections
    /// for these URL hosts, or to these addresses, are not checked.
    public var allowedHosts: Set<String>
    /// What a refusal calls the setting that fills `allowedHosts`: the program's own name for it
    /// (the command line's `--media-allow-host`); `MediaAddressPolicy(allowedHosts:)` by default.
    public var allowedHostsSetting: String

    /// Makes a policy.
    /// - Parameters:
    ///   - allowedHosts: names or literal addresses to allow whatever they resolve to.
    ///   - allowedHostsSetting: the program's name for the setting that allows a host, for refusals.
    public init(allowedHosts: Set<String> = [], allowedHostsSetting: String = "MediaAddressPolicy(allowedHosts:)") {
        self.allowedHosts = Set(allowedHosts.map { Self.bare($0) })
        self.allowedHostsSetting = allowedHostsSetting
    }

    /// Why a connection is refused, or `nil` when it is allowed.
    ///
    /// A literal address is named with its range; a name is not followed by what it resolved
    /// to (a refusal must not tell a caller what internal names resolve to).
    /// - Parameters:
    ///   - host: the URL's host (a name or a literal).
    ///   - address: the numeric address about to be connected to.
    /// - Returns: e.g. `"10.0.0.7 is a private address (10.0.0.0/8); …"`, or `nil`.
    public func refusal(host: String, address: String) -> String? {
        if allowedHosts.contains(Self.bare(host)) || allowedHosts.contains(Self.bare(address)) { return nil }
        guard let range = Self.nonPublicRange(address) else { return nil }
        let named = Self.bare(host) == Self.bare(address) ? "\(address) is \(range)" : "\(host) resolves to an address that is not on the public internet"
        return
            "\(named); the provider never fetches media from non-public addresses (allow \(Self.bare(host)) with \(allowedHostsSetting) for a test or intranet host)"
    }

    /// The non-public range an address is in, or `nil` for a public address.
    /// - Parameter address: numeric IPv4 or IPv6 text.
    /// - Returns: e.g. `"a loopback address (127.0.0.0/8)"`; `"not a numeric address"` for text
    ///   that is neither.
    public static func nonPublicRange(_ address: String) -> String? {
        let text = bare(address)
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return range(ipv4: withUnsafeBytes(of: &v4) { Array($0) })
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return "not a numeric address" }
        return range(ipv6: withUnsafeBytes(of: &v6) { Array($0) })
    }

    private static func range(ipv4 b: [UInt8]) -> String? {
        switch (b[0], b[1], b[2]) {
        case (0, _, _): return "a \"this network\" address (0.0.0.0/8)"
        case (10, _, _): return "a private address (10.0.0.0/8)"
        case (100, 64...127, _): return "a carrier-grade NAT address (100.64.0.0/10)"
        case (127, _, _): return "a loopback address (127.0.0.0/8)"
        case (169, 254, _): return "a link-local address (169.254.0.0/16, cloud metadata)"
        case (172, 16...31, _): return "a private address (172.16.0.0/12)"
        case (192, 168, _): return "a private address (192.168.0.0/16)"
        case (192, 0, 0): return "an IETF protocol address (192.0.0.0/24)"
        case (192, 0, 2): return "a documentation address (192.0.2.0/24)"
        case (192, 88, 99): return "a 6to4 relay address (192.88.99.0/24)"
        case (198, 18...19, _): return "a benchmarking address (198.18.0.0/15)"
        case (198, 51, 100): return "a documentation address (198.51.100.0/24)"
        case (203, 0, 113): return "a documentation address (203.0.113.0/24)"
        case (224...239, _, _): return "a multicast address (224.0.0.0/4)"
        case (240...255, _, _): return "a reserved address (240.0.0.0/4)"
        default: return nil
        }
    }

    private static func range(ipv6 b: [UInt8]) -> String? {
        func zero(_ r: Range<Int>) -> Bool { b[r].allSatisfy { $0 == 0 } }
        if zero(0..<16) { return "the unspecified address (::)" }
        if zero(0..<15) && b[15] == 1 { return "a loopback address (::1)" }
        // IPv4 inside IPv6, judged by the IPv4 address.
        if zero(0..<10) && b[10] == 0xFF && b[11] == 0xFF {
            return range(ipv4: Array(b[12..<16])).map { "an IPv4-mapped address of \($0)" }
        }
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B, zero(4..<12) {
            return range(ipv4: Array(b[12..<16])).map { "a NAT64 address of \($0)" }
        }
        if b[0] == 0x20, b[1] == 0x02 {
            return range(ipv4: Array(b[2..<6])).map { "a 6to4 address of \($0)" }
        }
        // Forms that embed IPv4 and are never globally routed.
        if zero(0..<12) { return "an IPv4-compatible address (::/96, deprecated)" }
        if zero(0..<8) && b[8] == 0xFF && b[9] == 0xFF && zero(10..<12) { return "an IPv4-translated address (::ffff:0:0:0/96)" }
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B, b[4] == 0x00, b[5] == 0x01 {
            return "a local-use NAT64 address (64:ff9b:1::/48)"
        }
        // Outside global unicast (2000::/3): nothing on the public internet.
        if b[0] & 0xE0 != 0x20 {
            if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return "a link-local address (fe80::/10)" }
            if b[0] == 0xFE, b[1] & 0xC0 == 0xC0 { return "a site-local address (fec0::/10, deprecated)" }
            if b[0] & 0xFE == 0xFC { return "a unique-local address (fc00::/7)" }
            if b[0] == 0xFF { return "a multicast address (ff00::/8)" }
            if b[0] == 0x01, b[1] == 0x00, zero(2..<8) { return "a discard-only address (100::/64)" }
            return "an address outside global unicast (2000::/3)"
        }
        // Inside it, IANA's special purposes.
        if b[0] == 0x20, b[1] == 0x01, b[2] < 0x02 {
            return b[2] == 0 && b[3] == 0 ? "a Teredo address (2001::/32)" : "an IETF protocol assignment (2001::/23)"
        }
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0D, b[3] == 0xB8 { return "a documentation address (2001:db8::/32)" }
        if b[0] == 0x3F, b[1] == 0xFF, b[2] & 0xF0 == 0x00 { return "a documentation address (3fff::/20)" }
        return nil
    }

    /// Lower-cased, without IPv6 brackets.
    static func bare(_ host: String) -> String {
        var h = host.lowercased()
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        return h
    }
}
