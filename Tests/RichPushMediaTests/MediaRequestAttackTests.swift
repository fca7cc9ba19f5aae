import Foundation
import RichPushCore
import RichPushMedia
import RichPushTestSupport
import Testing

/// Issue 22 item 10 (media): URL credentials are never sent as Basic auth, a Content-Length past
/// 2^64 is `network`; through the extension pipeline (`richpush simulate`) and the probe.
@Suite("Media request attacks", .serialized)
struct MediaRequestAttackTests {
    @Test("credentials in a media URL and in a redirect's Location are not sent")
    func credentialsNotSent() async throws {
        let bench = try await MediaWorkbench.shared()
        let direct = "http://user:secret@127.0.0.1:\(bench.port)/auth/photo.jpg"
        let simulated = try await Simulation.run(direct)
        #expect(simulated.outcome == "media_attached", "\(simulated.raw)")
        let location = "http://admin:hunter2@127.0.0.1:\(bench.port)/auth/logo.png"
        let redirected = try await Simulation.run(
            bench.url("redirect?to=" + (location.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")))
        #expect(redirected.outcome == "media_attached", "\(redirected.raw)")
        var settings = MediaProbe.Settings()
        settings.allowedHTTPHosts = ["127.0.0.1"]
        settings.addressPolicy = MediaAddressPolicy(allowedHosts: ["127.0.0.1"])
        let probed = await MediaProbe(settings: settings).probe(direct)
        #expect(probed.reason == nil)
        let auth = try await bench.log().auth
        #expect(auth["photo.jpg"]?.count == 2)
        #expect(auth["photo.jpg"]?.allSatisfy { $0 == "-" } == true, "Authorization sent: \(auth)")
        #expect(auth["logo.png"] == ["-"], "Authorization sent after a redirect: \(auth)")

        // Configured (MediaFetcher.sendsURLCredentials / RichPushConfiguration.sendsMediaURLCredentials): sent.
        settings.sendsURLCredentials = true
        let opted = await MediaProbe(settings: settings).probe("http://user:secret@127.0.0.1:\(bench.port)/auth/anim.gif")
        #expect(opted.reason == nil)
        #expect(try await bench.log().auth["anim.gif"] == ["Basic " + Data("user:secret".utf8).base64EncodedString()])
    }

    @Test("Content-Length past 2^64 then close: network, not attached")
    func contentLengthOutOfRange() async throws {
        let bench = try await MediaWorkbench.shared()
        let simulated = try await Simulation.run(bench.url("bad-length"))
        #expect(simulated.outcome == "text_only")
        #expect(simulated.reason == "network")
    }
}
