import Foundation
import RichPushCore
import RichPushMedia
import RichPushTestSupport
import Testing

/// One table over real files and misbehaving routes: for each URL, `MediaProbe`'s reason equals
/// the reason `richpush simulate` (the extension pipeline itself) gives for the same URL.
@Suite("Media probe agrees with simulate", .serialized)
struct ProbeMatchesSimulateTests {
    struct Case: Sendable, CustomStringConvertible {
        var path: String
        var reason: String?
        var allowHTTP = true
        var budget: Double = 25
        var description: String { path }
    }

    static let cases: [Case] = [
        Case(path: "f/photo.jpg", reason: nil),
        Case(path: "f/logo.png", reason: nil),
        Case(path: "f/anim.gif", reason: nil),
        Case(path: "f/clip.mp4", reason: nil),
        Case(path: "f/photo.webp", reason: "unsupported_format"),
        Case(path: "f/anim.webp", reason: "unsupported_format"),
        Case(path: "f/photo.heic", reason: "unsupported_format"),
        Case(path: "f/photo.avif", reason: "unsupported_format"),
        Case(path: "f/photo.tiff", reason: "unsupported_format"),
        Case(path: "f/tiny.bmp", reason: "unsupported_format"),
        Case(path: "f/icon.svg", reason: "unsupported_format"),
        Case(path: "f/photo.jxl", reason: "unsupported_format"),
        Case(path: "f/big.jpg", reason: "too_large"),
        Case(path: "f/huge.png", reason: "too_large"),
        Case(path: "f/flood.png", reason: "too_large"),
        Case(path: "f/truncated.jpg", reason: "corrupt_media"),
        Case(path: "jpeg-then-html", reason: "corrupt_media"),
        Case(path: "f/huge.mp4", reason: "too_large"),
        Case(path: "chain/4", reason: nil),
        Case(path: "chain/6", reason: "redirect_limit"),
        Case(path: "f/photo.jpg", reason: "insecure_scheme", allowHTTP: false),
        Case(path: "wrong-type", reason: nil),
        Case(path: "slow", reason: "timeout", budget: 1.5),
        Case(path: "missing.jpg", reason: "http_status"),
        Case(path: "bad-length", reason: "network"),
    ]

    @Test("probe reason == simulate reason", arguments: cases)
    func sameReason(_ c: Case) async throws {
        let bench = try await MediaWorkbench.shared()
        let url = bench.url(c.path)
        var settings = MediaProbe.Settings()
        settings.budget = .milliseconds(Int(c.budget * 1000))
        settings.allowedHTTPHosts = c.allowHTTP ? ["127.0.0.1"] : []
        settings.addressPolicy = MediaAddressPolicy(allowedHosts: ["127.0.0.1"])
        let probed = await MediaProbe(settings: settings).probe(url)
        let simulated = try await Simulation.run(url, allowHTTP: c.allowHTTP, deadline: c.budget)
        #expect(probed.reason?.rawValue == c.reason, "probe: \(probed.line)")
        #expect(simulated.reason == c.reason, "simulate: \(simulated.raw)")
        #expect(probed.reason?.rawValue == simulated.reason)
        if c.reason == nil {
            #expect(simulated.outcome == "media_attached")
            #expect(probed.bytes ?? 0 > 0)
            #expect(probed.finalURL != nil)
            #expect(probed.ttfbMs != nil && probed.ttfbMs ?? 0 <= probed.totalMs)
        }
    }

    @Test("what the probe reports: type, bytes, pixel size, final URL after redirects")
    func reportedFields() async throws {
        let bench = try await MediaWorkbench.shared()
        var settings = MediaProbe.Settings()
        settings.allowedHTTPHosts = ["127.0.0.1"]
        settings.addressPolicy = MediaAddressPolicy(allowedHosts: ["127.0.0.1"])
        let result = await MediaProbe(settings: settings).probe(bench.url("chain/2"))
        #expect(result.reason == nil)
        #expect(result.format == .jpeg)
        #expect(result.bytes == 89696)
        #expect(result.pixelSize == .init(width: 900, height: 600))
        #expect(result.finalURL?.absoluteString == bench.url("chain/0"))
        #expect(result.redirects == 2)
        #expect(result.httpStatus == 200)
        let webp = await MediaProbe(settings: settings).probe(bench.url("f/photo.webp"))
        #expect(webp.format == .webP)
        guard case .object(let json) = webp.json else { throw TestSupportError("not an object") }
        #expect(json["reason"] == .string("unsupported_format"))
        #expect(json["type"] == .string("org.webmproject.webp"))
    }
}
