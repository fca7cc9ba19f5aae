import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `richpush migrate` copies what campaigns, webhooks and the code bounds keep (schema versions
/// 7 to 9): device tags, campaigns with their chunks and targets, the webhook outbox with its
/// endpoints' figures, the admitted codes. A running campaign goes on from PostgreSQL (its
/// leased chunk taken over once the lease ran out, the in-flight token counted as a resend);
/// rows the server would refuse are reported and skipped; a re-run copies nothing twice.
@Suite("richpush migrate: campaigns, tags, webhook outbox, admitted codes", .serialized)
struct CampaignMigrationTests {
    static let running = "aaaa0001-0000-4000-8000-000000000001"
    static let finished = "bbbb0002-0000-4000-8000-000000000002"
    static let endpoint = WebhookEndpoint(url: "https://hooks.example.com/richpush", secret: Data("s".utf8)).key

    /// Rows no server writes, straight into the file with Python's sqlite3.
    static let tamper = #"""
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        running = sys.argv[2]
        db.execute("INSERT INTO device_tags (device_token, tag) VALUES (?, 'has space')", ("ab" * 32,))
        db.execute("INSERT INTO campaign_targets (campaign_id, chunk, device_token, provider, state) VALUES (?, 9, 'not a token', 'apns', 'pending')", (running,))
        db.execute("INSERT INTO campaign_chunks (campaign_id, chunk, state, lease_until_ms) VALUES (?, 9, 'paused', 0)", (running,))
        cols = "campaign_id, push_id, state, payload, topic, push_type, collapse_id, audience, send_at_ms, created_at_ms"
        db.execute(f"INSERT INTO campaigns ({cols}) VALUES ('cccc0003', 'p-x', 'paused', '{{}}', 't', 'alert', 'c', 'all', 1, 1)")
        db.execute(f"INSERT INTO campaigns ({cols}) VALUES ('dddd0004', 'p-y', 'running', 'not json', 't', 'alert', 'c', 'all', 1, 1)")
        db.execute("INSERT INTO webhook_outbox (endpoint, event_id, event_type, subject, body, created_at_ms, next_attempt_ms) VALUES (?, 'evt_bad', 'token.inactive', 's', '{}', 1, 1)", (sys.argv[3],))
        db.execute("INSERT INTO admitted_codes (scope, kind, code) VALUES ('', 'reason', 'Bad-Code')")
        db.commit()
        """#

    /// A SQLite store with a running and a finished campaign, tags, webhook deliveries in each
    /// state and admitted codes, then the rows of `tamper`.
    static func filledSQLite() async throws -> StoreFixture {
        let fixture = try await StoreFixture.make(.sqlite)
        let store = try SQLiteStore(path: fixture.dbArgument)
        let tokens = CampaignHarness.tokens(4, prefix: "9a")
        for (i, token) in tokens.enumerated() {
            _ = try store.registerDevice(
                DeviceRegistration(token: token, provider: "apns", platform: "ios", registeredAtMs: 10, tags: i < 2 ? ["beta", "lang:fr"] : []))
        }
        // Running: 2 targets in chunks of 1; chunk 0 leased by the SQLite server until 3,000 ms with its token in flight.
        _ = try store.createCampaign(CampaignStoreTests.draft(running, audience: .tagsAny(["beta"]), chunkSize: 1))
        let leased = try #require(try store.claimCampaignChunk(owner: "sqlite-w", nowMs: 2_000, leaseMs: 1_000))
        #expect(try store.markCampaignTargetsInFlight(leased, tokens: leased.targets.map(\.token), nowMs: 2_000, leaseMs: 1_000)?.count == 1)
        // Finished: 3 listed tokens, all accepted.
        var listed = CampaignStoreTests.draft(finished, audience: .tokens(Array(tokens.suffix(3))), chunkSize: 5)
        listed.provider = "apns"
        (listed.createdAtMs, listed.sendAtMs) = (500, 500)  // older: its chunk is handed out first
        _ = try store.createCampaign(listed)
        let chunk = try #require(try store.claimCampaignChunk(owner: "sqlite-w2", nowMs: 2_000, leaseMs: 1_000))
        #expect(chunk.campaign.id == finished)
        _ = try store.markCampaignTargetsInFlight(chunk, tokens: chunk.targets.map(\.token), nowMs: 2_000, leaseMs: 1_000)
        try store.recordCampaignResults(chunk, results: CampaignFixesTests.results(chunk.targets.map(\.token)))
        try store.releaseCampaignChunk(chunk, nowMs: 2_500, error: nil)
        #expect(try store.campaign(finished)?.state == "finished")

        // Webhooks: e1 and e2 of one subject, e3 of another; e1 delivered, e3 given up, e2 pending.
        let events = ["s1", "s1", "s2"].enumerated().map { i, subject in
            WebhookDelivery(
                endpoint: endpoint, event: WebhookEvent(type: .tokenInactive, subject: subject, createdAtMs: 1_000 + i, data: ["n": .int(i)]))
        }
        try store.enqueueWebhooks(events)
        let claims = try store.claimWebhooks(endpoint: endpoint, owner: "sqlite", nowMs: 5_000, leaseMs: 60_000, limit: 10)
        #expect(claims.map(\.subject) == ["s1", "s2"])
        try store.finishWebhooks(
            [
                WebhookAttempt(seq: claims[0].seq, outcome: .delivered, status: 200, error: nil, atMs: 5_100),
                WebhookAttempt(seq: claims[1].seq, outcome: .gaveUp, status: 500, error: "HTTP 500: down\nfor good", atMs: 5_200),
            ], endpoint: endpoint, owner: "sqlite")
        // Admitted codes: two unknown reasons of push p-codes.
        _ = try store.insert([
            CodeFoldingStoreTests.receipt("p-codes", 1, reason: "brand_new_reason"), CodeFoldingStoreTests.receipt("p-codes", 2, reason: "other_new"),
        ])
        try store.close()
        let tampered = try await ChildProcess("python3", ["-c", tamper, fixture.dbArgument, running, endpoint]).run(timeout: 60)
        #expect(tampered.status == 0, "\(tampered.stderr)")
        return fixture
    }

    @Test("a running campaign goes on from PostgreSQL; tags, outbox, endpoint figures and codes arrive; bad rows reported; a re-run copies nothing")
    func copyAndResume() async throws {
        let source = try await Self.filledSQLite()
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let (summary, _) = try await StoreCopyTests.copy(source.dbArgument, to: database.url)
        let byTable = Dictionary(uniqueKeysWithValues: summary.map { ($0.table, $0) })
        func figures(_ table: String) -> [Int] {
            guard let s = byTable[table] else { return [] }
            return [s.sourceRows, s.copied, s.new, s.skipped.count]
        }
        #expect(figures("device tags") == [5, 5, 4, 1])
        #expect(figures("campaign targets") == [6, 6, 5, 1])
        #expect(figures("campaign chunks") == [4, 4, 3, 1])
        #expect(figures("campaigns") == [4, 4, 2, 2])
        #expect(figures("webhook events") == [3, 3, 2, 1])
        #expect(figures("webhook endpoints") == [1, 1, 1, 0])
        // Store-wide and per push: 2 codes each, and the bad one.
        #expect(figures("admitted codes") == [5, 5, 4, 1])
        let problems = summary.flatMap(\.skipped).map { "\($0.table) \($0.rowid): \($0.problem)" }
        #expect(problems.contains { $0.hasPrefix("device tags 5: tag is not 1…64 bytes") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("campaign targets 6: device_token is not") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("campaign chunks 4: state is 'paused'; expected one of done, leased, pending") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("campaigns 3: state is 'paused'") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("campaigns 4: payload is not a JSON object") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("webhook events 4: event_id is not an event id") }, "\(problems)")
        #expect(problems.contains { $0.contains("code is not a code") }, "\(problems)")

        let target = try PostgresStore(url: database.url, log: { _ in }, clock: .caller)
        defer { try? target.close() }
        // The finished campaign answers as it did on SQLite.
        let done = try #require(try target.campaign(Self.finished))
        let doneCounters: [Int] = [done.targets, done.sent, done.accepted, done.inFlight]
        #expect(done.state == "finished" && doneCounters == [3, 3, 3, 0])
        #expect(try target.campaign("cccc0003") == nil)
        // The running one: the pending chunk is free at once; the SQLite server's lease holds until 3,000 ms.
        var campaign = try #require(try target.campaign(Self.running))
        #expect(campaign.state == "running" && campaign.targets == 2 && campaign.inFlight == 1)
        let pending = try #require(try target.claimCampaignChunk(owner: "pg-1", nowMs: 2_100, leaseMs: 1_000))
        #expect(pending.chunk == 1 && pending.targets.count == 1 && pending.targets.allSatisfy { !$0.wasInFlight })
        #expect(try target.claimCampaignChunk(owner: "pg-2", nowMs: 2_100, leaseMs: 1_000) == nil)
        let takenOver = try #require(try target.claimCampaignChunk(owner: "pg-2", nowMs: 3_500, leaseMs: 1_000))
        #expect(takenOver.chunk == 0 && takenOver.targets.allSatisfy { $0.wasInFlight })
        _ = try target.markCampaignTargetsInFlight(takenOver, tokens: takenOver.targets.map(\.token), nowMs: 3_500, leaseMs: 1_000)
        campaign = try #require(try target.campaign(Self.running))
        #expect(campaign.resentAfterCrash == 1 && campaign.inFlight == 1)
        // Tags: a tag audience on PostgreSQL finds the two tagged devices.
        let tagged = CampaignStoreTests.draft("eeee0005", audience: .tagsAny(["lang:fr"]))
        #expect(try target.createCampaign(tagged).campaign.targets == 2)
        // The outbox: e2 pending and due, e3 given up; the endpoint's figures.
        let due = try target.claimWebhooks(endpoint: Self.endpoint, owner: "pg", nowMs: 10_000, leaseMs: 60_000, limit: 10)
        #expect(due.map(\.subject) == ["s1"])
        #expect(due.first?.attempts == 0)  // never sent: claims are no attempts
        let status = try #require(try target.webhookStatus()[Self.endpoint])
        let outbox: [Int] = [status.delivered, status.failed, status.pending]
        #expect(outbox == [1, 1, 1])
        #expect(status.lastError == "HTTP 500: down\nfor good")
        let codes = try await database.execute("SELECT scope || '/' || kind || '/' || code FROM admitted_codes ORDER BY 1")
        #expect(codes == ["/reason/brand_new_reason", "/reason/other_new", "p-codes/reason/brand_new_reason", "p-codes/reason/other_new"])

        // Again: nothing copied twice, no rowid table's bad row reported again.
        let (again, _) = try await StoreCopyTests.copy(source.dbArgument, to: database.url)
        for s in again where s.table != "admitted codes" {
            #expect(s.copied == 0 && s.copiedBefore == s.sourceRows, "\(s)")
        }
        let codesAgain = try #require(again.first { $0.table == "admitted codes" })
        #expect(codesAgain.new == 0 && codesAgain.copiedBefore == 4)
        // The 5 copied and the 2 of the campaign made on PostgreSQL.
        #expect(try await database.execute("SELECT count(*) FROM campaign_targets") == ["7"])
        #expect(try await database.execute("SELECT sum(delivered) FROM webhook_endpoints") == ["1"])
        #expect(try await database.execute("SELECT count(*) FROM webhook_outbox") == ["2"])
    }
}
