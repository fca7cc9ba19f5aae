import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The webhook outbox against both stores: events written in the send's transaction, claims in
/// order per subject under a lease, outcomes, figures; and two PostgreSQL stores claiming at once.
@Suite("webhooks: the outbox (SQLite and PostgreSQL)")
struct WebhookOutboxStoreTests {
    static let endpoint = WebhookEndpoint(url: "http://127.0.0.1:9/hooks", secret: Data("0123456789abcdef".utf8))
    static let settings = WebhookSettings(endpoints: [endpoint])

    func withStore(_ backend: StoreBackend, _ body: @escaping @Sendable (any ReceiptStore & StatisticsStore & WebhookOutboxStore) throws -> Void)
        async throws
    {
        let fixture = try await StoreFixture.make(backend)
        let store = try await fixture.open()
        try await store.run { store in
            guard let outbox = store as? any ReceiptStore & StatisticsStore & WebhookOutboxStore else {
                throw TestSupportError("\(type(of: store)) keeps no webhook outbox")
            }
            try body(outbox)
        }
        try await store.close()
    }

    static func inactive(_ token: String, since: Int? = nil) -> PushSendRecord.TokenResult {
        .init(deviceToken: token, status: 410, reason: "Unregistered", outcome: "token_inactive", state: .inactive, inactiveSinceMs: since)
    }

    @Test("a send's token events and push.sent are written with its record, once per batch id", arguments: StoreBackend.allCases)
    func writtenWithTheSend(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let record = PushSendRecord(
                pushID: "p1", sentAtMs: 1_000, title: "Sale",
                tokens: [
                    .init(deviceToken: "a", status: 200, outcome: "accepted"), Self.inactive("b", since: 500),
                    .init(deviceToken: "c", status: 400, reason: "BadDeviceToken", outcome: "token_bad", state: .bad),
                ], source: "apns", batchID: "apns-1")
            let attached = Self.settings.attaching(to: [record], pushSent: true, atMs: 2_000)
            #expect(attached[0].webhookDeliveries.map(\.event.type) == [.tokenInactive, .tokenBad, .pushSent])
            #expect(try store.recordSend(attached[0]) == .recorded)
            // The same batch again (a retry): nothing recorded, no second set of events.
            let again = Self.settings.attaching(to: [record], pushSent: true, atMs: 3_000)
            #expect(try store.recordSend(again[0]) == .duplicate)
            let status = try #require(try store.webhookStatus()[Self.endpoint.key])
            #expect(status.pending == 3)
            #expect(status.oldestPendingMs == 2_000)
            let claims = try store.claimWebhooks(endpoint: Self.endpoint.key, owner: "me", nowMs: 2_000, leaseMs: 60_000, limit: 10)
            #expect(claims.map(\.type) == [.tokenInactive, .tokenBad, .pushSent])
            #expect(claims.map(\.subject) == ["b", "c", "p1"])
            let body = try RichPushJSONValue.parse(claims[0].body)
            #expect(body["type"]?.stringValue == "token.inactive")
            #expect(body["created_at"]?.stringValue == "1970-01-01T00:00:02.000Z")
            #expect(body["data"]?["token"]?.stringValue == "b")
            #expect(body["data"]?["inactive_since"]?.stringValue == "1970-01-01T00:00:00.500Z")
            #expect(body["id"]?.stringValue == claims[0].eventID)
            let sent = try RichPushJSONValue.parse(claims[2].body)
            #expect(sent["data"]?["sent"] == .int(3))
            #expect(sent["data"]?["accepted"] == .int(1))
            #expect(sent["data"]?["providers"]?["apns"]?["accepted"] == .int(1))
        }
    }

    @Test("a subject's next event waits until the one before is delivered or given up; leases exclude", arguments: StoreBackend.allCases)
    func orderPerSubject(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let key = Self.endpoint.key
            let events = [
                WebhookEvent(type: .tokenInactive, subject: "t", createdAtMs: 100, data: ["n": .int(1)]),
                WebhookEvent(type: .tokenBad, subject: "t", createdAtMs: 100, data: ["n": .int(2)]),
                WebhookEvent(type: .tokenInactive, subject: "u", createdAtMs: 100, data: ["n": .int(3)]),
                WebhookEvent(type: .tokenInactive, subject: "t", createdAtMs: 100, data: ["n": .int(4)]),
            ]
            try store.enqueueWebhooks(Self.settings.deliveries(for: events))
            // One per subject: t's first and u's.
            let first = try store.claimWebhooks(endpoint: key, owner: "a", nowMs: 1_000, leaseMs: 10_000, limit: 10)
            #expect(first.map(\.eventID) == [events[0].id, events[2].id])
            // A claim is no attempt: none was sent yet.
            #expect(first.map(\.attempts) == [0, 0])
            // Leased: nobody else gets them, and t's second still waits.
            #expect(try store.claimWebhooks(endpoint: key, owner: "b", nowMs: 2_000, leaseMs: 10_000, limit: 10).isEmpty)
            // t's first fails (retry at 5,000), u's is delivered.
            try store.finishWebhooks(
                [
                    WebhookAttempt(seq: first[0].seq, outcome: .retry(nextAttemptMs: 5_000), status: 503, error: "HTTP 503", atMs: 2_000),
                    WebhookAttempt(seq: first[1].seq, outcome: .delivered, status: 200, error: nil, atMs: 2_000),
                ], endpoint: key, owner: "a")
            #expect(try store.claimWebhooks(endpoint: key, owner: "b", nowMs: 4_999, leaseMs: 10_000, limit: 10).isEmpty)
            let retried = try store.claimWebhooks(endpoint: key, owner: "b", nowMs: 5_000, leaseMs: 10_000, limit: 10)
            #expect(retried.map(\.eventID) == [events[0].id])
            #expect(retried.map(\.attempts) == [1])
            #expect(retried.map(\.failures) == [1])
            // An outcome from an owner whose lease was taken over changes nothing.
            try store.finishWebhooks(
                [WebhookAttempt(seq: retried[0].seq, outcome: .delivered, status: 200, error: nil, atMs: 5_100)], endpoint: key, owner: "a")
            #expect(try store.webhookStatus()[key]?.pending == 3)
            try store.finishWebhooks(
                [WebhookAttempt(seq: retried[0].seq, outcome: .gaveUp, status: 503, error: "HTTP 503 (given up)", atMs: 5_200)], endpoint: key, owner: "b")
            // Given up: t's second is due now.
            let next = try store.claimWebhooks(endpoint: key, owner: "b", nowMs: 6_000, leaseMs: 10_000, limit: 10)
            #expect(next.map(\.eventID) == [events[1].id])
            // A lease that ran out is claimed again (the instance died mid-delivery).
            let takeover = try store.claimWebhooks(endpoint: key, owner: "c", nowMs: 16_001, leaseMs: 10_000, limit: 10)
            #expect(takeover.map(\.eventID) == [events[1].id])
            // Whether the dead owner sent it is not known: no attempt, no failure recorded.
            #expect(takeover.map(\.attempts) == [0])
            let status = try #require(try store.webhookStatus()[key])
            #expect(status.pending == 2)
            #expect(status.retrying == 0)
            #expect(status.delivered == 1)
            #expect(status.failed == 1)
            #expect(status.lastError == "HTTP 503 (given up)")
            #expect(status.lastErrorAtMs == 5_200)
            #expect(status.lastDeliveredAtMs == 2_000)
            #expect(try store.pruneWebhooks(failedBeforeMs: 5_201) == 1)
            #expect(try store.pruneWebhooks(failedBeforeMs: 5_201) == 0)
        }
    }

    @Test("a try whose request never went out is no attempt, but a failure for the backoff and retrying", arguments: StoreBackend.allCases)
    func unsentTryIsNoAttempt(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let key = Self.endpoint.key
            let event = WebhookEvent(type: .tokenInactive, subject: "n", createdAtMs: 100, data: [:])
            try store.enqueueWebhooks(Self.settings.deliveries(for: [event]))
            let first = try store.claimWebhooks(endpoint: key, owner: "a", nowMs: 1_000, leaseMs: 10_000, limit: 10)
            #expect(first.map(\.attempts) == [0])
            // Connection refused: nothing was sent.
            try store.finishWebhooks(
                [WebhookAttempt(seq: first[0].seq, outcome: .retry(nextAttemptMs: 2_000), status: nil, error: "no answer: refused", atMs: 1_100, sent: false)],
                endpoint: key, owner: "a")
            let second = try store.claimWebhooks(endpoint: key, owner: "a", nowMs: 2_000, leaseMs: 10_000, limit: 10)
            #expect(second.map(\.attempts) == [0])
            #expect(second.map(\.failures) == [1])
            #expect(try store.webhookStatus()[key]?.retrying == 1)
            // Sent, answered 503: an attempt.
            try store.finishWebhooks(
                [WebhookAttempt(seq: second[0].seq, outcome: .retry(nextAttemptMs: 3_000), status: 503, error: "HTTP 503", atMs: 2_100)],
                endpoint: key, owner: "a")
            let third = try store.claimWebhooks(endpoint: key, owner: "a", nowMs: 3_000, leaseMs: 10_000, limit: 10)
            #expect(third.map(\.attempts) == [1])
            #expect(third.map(\.failures) == [2])
        }
    }

    @Test("two PostgreSQL stores claiming at once never hold the same delivery, and keep each subject's order")
    func twoInstancesClaim() async throws {
        let fixture = try await StoreFixture.make(.postgres)
        let a = try await fixture.open(), b = try await fixture.open()
        let key = Self.endpoint.key
        // 20 subjects × 5 events each.
        var events: [WebhookEvent] = []
        for n in 0..<5 {
            for s in 0..<20 { events.append(WebhookEvent(type: .tokenInactive, subject: "s\(s)", createdAtMs: 1, data: ["n": .int(n)])) }
        }
        let deliveries = Self.settings.deliveries(for: events)
        try await a.run { try ($0 as? any WebhookOutboxStore)?.enqueueWebhooks(deliveries) }
        let order = Dictionary(uniqueKeysWithValues: events.enumerated().map { ($1.id, $0) })
        // Taken between a claim and its finish: a subject's next claim can only follow the
        // finish of the one before, so it draws a larger number.
        let clock = Locked(0)
        @Sendable func drain(_ store: TestStore, owner: String) async throws -> [(at: Int, id: String)] {
            var got: [(Int, String)] = []
            var idle = 0
            while idle < 20 {
                let claims = try await store.run { store -> [(Int, String)] in
                    guard let outbox = store as? any WebhookOutboxStore else { return [] }
                    let claims = try outbox.claimWebhooks(endpoint: key, owner: owner, nowMs: 10, leaseMs: 600_000, limit: 4)
                    let at = clock.withLock { tick in
                        tick += 1
                        return tick
                    }
                    try outbox.finishWebhooks(
                        claims.map { WebhookAttempt(seq: $0.seq, outcome: .delivered, status: 200, error: nil, atMs: 10) }, endpoint: key, owner: owner)
                    return claims.map { (at, $0.eventID) }
                }
                idle = claims.isEmpty ? idle + 1 : 0
                got += claims
                if claims.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
            }
            return got
        }
        async let fromA = drain(a, owner: "a")
        async let fromB = drain(b, owner: "b")
        let (gotA, gotB) = try await (fromA, fromB)
        let all = gotA.map(\.id) + gotB.map(\.id)
        #expect(all.count == events.count)
        #expect(Set(all).count == events.count)
        #expect(!gotA.isEmpty && !gotB.isEmpty)
        // Claimed (and delivered) in order per subject: sort both instances' claims by time.
        let timeline = (gotA + gotB).sorted { $0.at < $1.at }.compactMap { order[$0.id] }
        for s in 0..<20 {
            let positions = timeline.filter { $0 % 20 == s }
            #expect(positions == positions.sorted(), "subject s\(s) claimed out of order: \(positions)")
        }
        try await a.close()
        try await b.close()
    }
}
