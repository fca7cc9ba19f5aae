import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `retrying` (the dashboard's column, `richpush_webhook_retrying`) counts deliveries that failed
/// at least once (`failures`), not a first attempt still in flight (seen before as a dashboard
/// with 8 retrying and no last error, under load, when claims counted as attempts).
@Suite("webhooks: retrying counts failed attempts, not attempts in flight")
struct WebhookRetryingTests {
    @Test("claimed: 0 retrying; failed and waiting: 1, with its error; claimed again: still 1; delivered: 0", arguments: StoreBackend.allCases)
    func retryingAfterAFailureOnly(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        try await store.run { store in
            guard let store = store as? any WebhookOutboxStore else { throw TestSupportError("\(type(of: store)) keeps no webhook outbox") }
            let key = WebhookOutboxStoreTests.endpoint.key
            let event = WebhookEvent(type: .tokenInactive, subject: "r", createdAtMs: 100, data: ["n": .int(1)])
            try store.enqueueWebhooks(WebhookOutboxStoreTests.settings.deliveries(for: [event]))
            #expect(try store.webhookStatus()[key]?.retrying == 0)
            let first = try store.claimWebhooks(endpoint: key, owner: "a", nowMs: 1_000, leaseMs: 10_000, limit: 10)
            #expect(first.map(\.attempts) == [0])
            // In flight, not failed: no error to show yet.
            var status = try #require(try store.webhookStatus()[key])
            #expect(status.pending == 1)
            #expect(status.retrying == 0)
            #expect(status.lastError == nil)
            try store.finishWebhooks(
                [WebhookAttempt(seq: first[0].seq, outcome: .retry(nextAttemptMs: 2_000), status: nil, error: "no answer", atMs: 1_500)],
                endpoint: key, owner: "a")
            status = try #require(try store.webhookStatus()[key])
            #expect(status.retrying == 1)
            #expect(status.lastError == "no answer")
            let second = try store.claimWebhooks(endpoint: key, owner: "a", nowMs: 2_000, leaseMs: 10_000, limit: 10)
            #expect(second.map(\.attempts) == [1])
            #expect(try store.webhookStatus()[key]?.retrying == 1)
            try store.finishWebhooks(
                [WebhookAttempt(seq: second[0].seq, outcome: .delivered, status: 200, error: nil, atMs: 2_100)], endpoint: key, owner: "a")
            status = try #require(try store.webhookStatus()[key])
            #expect(status.pending == 0)
            #expect(status.retrying == 0)
            #expect(status.delivered == 1)
        }
        try await store.close()
    }
}
