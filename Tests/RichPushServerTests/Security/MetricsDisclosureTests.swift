import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `/metrics` is open (issue 28): it labelled the webhook series with each endpoint's URL path,
/// where Slack, Discord and Teams keep the webhook's secret. Now the label is the endpoint's key.
@Suite("metrics disclose no webhook URL")
struct MetricsDisclosureTests {
    @Test("an anonymous GET /metrics names webhook endpoints by key, never by URL, path or host")
    func webhookLabels() async throws {
        let secretPath = "/services/T0000/B0000/XoXoSecret\(UUID().uuidString.prefix(8))"
        let endpoint = WebhookEndpoint(url: "https://hooks.slack.example\(secretPath)?token=t0k", secret: Data("s".utf8))
        let server = try InProcessServer { $0.webhooks = WebhookSettings(endpoints: [endpoint]) }
        let metrics = try await server.client().request("GET", "/metrics")
        #expect(metrics.status == 200)
        #expect(!metrics.text.contains("XoXoSecret") && !metrics.text.contains("/services/") && !metrics.text.contains("hooks.slack"), "\(metrics.text)")
        #expect(metrics.text.contains("richpush_webhook_attempts_total{endpoint=\"\(endpoint.key)\",result=\"delivered\"} 0"), "\(metrics.text)")
        #expect(endpoint.key.hasPrefix("whe_") && endpoint.key.count == 20)
        try await server.shutdown()
    }
}
