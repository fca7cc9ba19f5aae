import Foundation
import RichPushCore
import RichPushMedia
import RichPushTestSupport
import Testing

/// No server-side request forgery: the probe refuses loopback, private, link-local and
/// unique-local addresses on every hop and on the address actually connected to. Non-loopback
/// addresses are never contacted: literals are refused before resolving, names mapped to them
/// (libcurl `CURLOPT_RESOLVE`) are refused in the open-socket hook, before any packet.
@Suite("Media probe address policy (SSRF)")
struct ProbeAddressPolicyTests {
    static func probe(_ url: String, allow: Set<String> = [], resolve: [String] = []) async -> MediaProbeResult {
        var settings = MediaProbe.Settings()
        settings.allowedHTTPHosts = ["127.0.0.1", "localhost", "::1", "[::1]", "10.1.2.3", "10.9.9.9", "169.254.169.254", "metadata.test", "intranet.test"]
        settings.addressPolicy = MediaAddressPolicy(allowedHosts: allow)
        settings.resolve = resolve
        settings.budget = .seconds(5)
        return await MediaProbe(settings: settings).probe(url)
    }

    @Test("127.0.0.1 refused unless --media-allow-host names it; the server never sees the request")
    func loopbackLiteral() async throws {
        let bench = try await MediaWorkbench.shared()
        let marker = "f/photo.jpg?ssrf=\(UUID().uuidString)"
        let refused = await Self.probe(bench.url(marker))
        #expect(refused.reason == .blockedAddress)
        #expect(refused.message.contains("127.0.0.1 is a loopback address"))
        #expect(!(try await bench.log().paths.contains { $0.contains("ssrf") }))
        let allowed = await Self.probe(bench.url(marker), allow: ["127.0.0.1"])
        #expect(allowed.reason == nil, "\(allowed.line)")
    }

    @Test("localhost and ::1 refused (names resolve to loopback; checked on the connected address)")
    func loopbackNames() async throws {
        let bench = try await MediaWorkbench.shared()
        let byName = await Self.probe("http://localhost:\(bench.port)/f/photo.jpg")
        #expect(byName.reason == .blockedAddress)
        #expect(byName.message.contains("localhost resolves to an address that is not on the public internet"), "\(byName.message)")
        let v6 = await Self.probe("http://[::1]:\(bench.port)/f/photo.jpg")
        #expect(v6.reason == .blockedAddress)
        #expect(v6.message.contains("loopback"))
    }

    @Test("10.x and 169.254.169.254 (cloud metadata) refused as literals, before any connection")
    func privateLiterals() async {
        let started = ContinuousClock.now
        let privateAddress = await Self.probe("http://10.1.2.3/image.jpg")
        #expect(privateAddress.reason == .blockedAddress)
        #expect(privateAddress.message.contains("private address (10.0.0.0/8)"))
        let metadata = await Self.probe("http://169.254.169.254/latest/meta-data/")
        #expect(metadata.reason == .blockedAddress)
        #expect(metadata.message.contains("link-local"))
        // Refused before connecting: no connect timeout was waited for.
        #expect(ContinuousClock.now - started < .seconds(4))
    }

    @Test("a name that resolves to 169.254.169.254 or 10.x is refused at the socket, before any packet, without saying what it resolves to")
    func namesResolvingToPrivate() async {
        let metadata = await Self.probe("http://metadata.test/latest", resolve: ["metadata.test:80:169.254.169.254"])
        #expect(metadata.reason == .blockedAddress)
        #expect(metadata.message.contains("metadata.test resolves to an address that is not on the public internet"), "\(metadata.message)")
        #expect(!metadata.message.contains("169.254") && !metadata.message.contains("link-local"), "\(metadata.message)")
        let intranet = await Self.probe("http://intranet.test/a.jpg", resolve: ["intranet.test:80:10.0.0.5"])
        #expect(intranet.reason == .blockedAddress)
        #expect(!intranet.message.contains("10.0.0.5") && !intranet.message.contains("private"), "\(intranet.message)")
        // An internal name mapped to an IPv6 form that embeds 10.0.0.5 says no more.
        let mapped = await Self.probe("http://intranet.test/b.jpg", resolve: ["intranet.test:80:[::ffff:10.0.0.5]"])
        #expect(mapped.reason == .blockedAddress, "\(mapped.line)")
        #expect(!mapped.message.contains("10.0.0.5"), "\(mapped.message)")
    }

    @Test(
        "every IPv6 form that embeds IPv4 or is not global is classified",
        arguments: [
            ("::127.0.0.1", "IPv4-compatible"), ("::8.8.8.8", "IPv4-compatible"), ("::a9fe:a9fe", "IPv4-compatible"),
            ("::ffff:0:127.0.0.1", "IPv4-translated"), ("::ffff:0:8.8.8.8", "IPv4-translated"), ("64:ff9b:1::a00:1", "local-use NAT64"),
            ("64:ff9b::10.0.0.1", "NAT64 address of a private"), ("64:ff9b::169.254.169.254", "NAT64 address of a link-local"),
            ("::ffff:169.254.169.254", "IPv4-mapped address of a link-local"), ("::ffff:192.0.2.1", "documentation"),
            ("2002:7f00:1::", "6to4 address of a loopback"), ("2002:a9fe:a9fe::1", "6to4 address of a link-local"),
            ("fec0::1", "site-local"), ("febf::1", "link-local"), ("fc00::1", "unique-local"), ("100::1", "discard-only"),
            ("2001::1", "Teredo"), ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"), ("2001:2::1", "IETF protocol assignment"),
            ("2001:10::1", "IETF protocol assignment"), ("2001:db8::1", "documentation"), ("3fff::1", "documentation"),
            ("5f00::1", "outside global unicast"), ("4000::1", "outside global unicast"), ("ff02::1", "multicast"),
            ("0:0:0:0:0:0:0:1", "loopback"), ("[::]", "unspecified"),
        ])
    func ipv6Forms(_ address: String, says: String) {
        let range = MediaAddressPolicy.nonPublicRange(address)
        #expect(range?.contains(says) == true, "\(address): \(range ?? "public")")
    }

    @Test(
        "public addresses stay public",
        arguments: [
            "8.8.8.8", "1.1.1.1", "2606:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:0808:0808::1", "2001:200::1",
        ])
    func publicAddresses(_ address: String) {
        #expect(MediaAddressPolicy.nonPublicRange(address) == nil, "\(address): \(MediaAddressPolicy.nonPublicRange(address) ?? "")")
    }

    @Test("a redirect from an allowed host to 10.x, 169.254.169.254 or a name mapped to one is refused on that hop")
    func redirectHops() async throws {
        let bench = try await MediaWorkbench.shared()
        for target in ["http://10.9.9.9/x.jpg", "http://169.254.169.254/latest", "http://metadata.test/x.jpg"] {
            let url = bench.url("redirect?to=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target))
            let result = await Self.probe(url, allow: ["127.0.0.1"], resolve: ["metadata.test:80:169.254.169.254"])
            #expect(result.reason == .blockedAddress, "\(target): \(result.line)")
            #expect(result.finalURL?.absoluteString == target)
        }
    }

    @Test(
        "the address ranges",
        arguments: [
            ("127.0.0.1", true), ("10.0.0.1", true), ("172.16.5.4", true), ("172.32.0.1", false), ("192.168.1.1", true),
            ("169.254.169.254", true), ("100.64.0.1", true), ("0.0.0.0", true), ("224.0.0.1", true), ("8.8.8.8", false),
            ("::1", true), ("::", true), ("fe80::1", true), ("fd00::1", true), ("::ffff:127.0.0.1", true), ("::ffff:8.8.8.8", false),
            ("64:ff9b::a9fe:a9fe", true), ("2002:0a00:0001::", true), ("2606:4700::1111", false), ("[::1]", true),
        ])
    func ranges(_ address: String, refused: Bool) {
        #expect((MediaAddressPolicy.nonPublicRange(address) != nil) == refused, "\(address)")
    }
}
