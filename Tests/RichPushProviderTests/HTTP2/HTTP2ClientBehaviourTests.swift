import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

/// What `HTTP2Client` does on its own, against `benchmarks/mock-apns`: a bad URL, keep-alive PINGs
/// on an idle connection at a bounded rate, and statistics a caller can read.
@Suite("HTTP2Client: URLs, keep-alive", .serialized)
struct HTTP2ClientBehaviourTests {
    @Test("a URL it cannot use fails with invalid_request, naming it, and nothing is sent")
    func badURLs() async throws {
        let client = try HTTP2Client()
        defer { client.shutdown() }
        for url in ["ftp://127.0.0.1/x", "not a url", "https://[::1/x", "https://127.0.0.1:99999/x", "https://:443/x"] {
            do {
                _ = try await client.send(TransportRequest(method: "GET", url: url))
                Issue.record("\(url) was sent")
            } catch let error as RichPushError {
                #expect(error.code == .invalidRequest, "\(url): \(error)")
                #expect(error.message.contains(url), "\(error.message)")
            }
        }
        #expect(client.statistics.connectionsOpened == 0)
    }

    @Test("an idle connection gets a PING every idle interval, no more, and stays open for the next request")
    func idleKeepAlive() async throws {
        let mock = try await CMockAPNs()
        defer { mock.stop() }
        var configuration = TransportConfiguration()
        configuration.caFile = mock.caFile.path
        configuration.idlePingInterval = 1
        let client = try HTTP2Client(configuration: configuration)
        defer { client.shutdown() }
        let manager = try await ConformanceRun.tokenManager(in: mock.directory)
        let apns = APNsClient(environment: .custom(mock.baseURL), authentication: .token(manager), httpTransport: client)
        let first = try await apns.send(MockAPNs.notification(), to: String(format: "%064x", 1))
        #expect(first.outcome == .accepted)
        let start = ContinuousClock.now
        try await Task.sleep(nanoseconds: 3_600_000_000)
        let idle = ContinuousClock.now - start
        let pings = client.statistics.pingsSent
        // One PING per second of idleness, give or take the timer's tick (0.25 s).
        let seconds = Int(idle.components.seconds)
        #expect(pings >= seconds - 1 && pings <= seconds + 1, "\(pings) PINGs in \(idle)")
        #expect(client.statistics.pingTimeouts == 0)
        let second = try await apns.send(MockAPNs.notification(), to: String(format: "%064x", 2))
        #expect(second.outcome == .accepted)
        #expect(client.statistics.connectionsOpened == 1, "the idle connection was not kept: \(client.statistics)")
    }
}
