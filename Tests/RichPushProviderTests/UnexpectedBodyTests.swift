import Foundation
import RichPushCore
import RichPushProvider
import Testing

/// An answer that is not APNs' JSON (a proxy's HTML error page) is summed up once per batch,
/// never per token, and never kept whole.
@Suite struct UnexpectedBodyTests {
    /// Answers every request with a proxy's 502 page.
    /// `@unchecked Sendable`: the request count is changed and read under `lock` only.
    final class ProxyErrorTransport: HTTPTransport, @unchecked Sendable {
        let lock = NSLock()
        var requests = 0
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            lock.withLock { requests += 1 }
            var response = TransportResponse(
                status: 502, headers: ["content-type": "text/html"],
                body: Data(("<html><head><title>502 Bad Gateway</title></head><body>\n\t" + String(repeating: "x", count: 16_000)).utf8))
            response.bodyTruncated = true
            return response
        }
        var connectionsOpened: Int { 1 }
        func shutdown() {}
    }

    @Test func aProxysErrorPageIsShownOnceForTheBatchAndTheTokensSayWhere() async throws {
        let transport = ProxyErrorTransport()
        let client = APNsClient(
            environment: .custom("https://proxy.example.com"), authentication: .certificate(.init(certificateFile: "/unused.p12")),
            httpTransport: transport, retry: APNsRetryPolicy(maxAttempts: 2, baseDelay: 0, maxDelay: 0))
        let tokens = (1...20).map { String(format: "%064x", $0) }
        let batch = try await client.send(
            APNsNotification(payload: RichPushPayloadBuilder(title: "t", body: "b").jsonData(), topic: "com.example.app"), to: tokens)
        #expect(batch.results.allSatisfy { $0.outcome == .retriesExhausted && $0.status == 502 })
        #expect(batch.results.allSatisfy { $0.message?.contains("shown once after the batch") == true })
        #expect(batch.results.allSatisfy { !($0.message ?? "").contains("Bad Gateway") })
        let excerpt = try #require(batch.unexpectedBody)
        #expect(excerpt.hasPrefix("502, text/html, over "))
        #expect(excerpt.contains("<title>502 Bad Gateway</title>"))
        #expect(!excerpt.contains("\n") && !excerpt.contains("\t"))
        #expect(excerpt.count < 300)
        #expect(transport.lock.withLock { transport.requests } == 40)
    }
}
