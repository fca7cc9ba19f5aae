import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The gaps closed after campaigns landed: the push's funnel counts a token sent again after a
/// takeover once, finished campaigns' targets are purged in bounded batches with the counters
/// kept, and the dashboard's `/campaigns?before=` is checked as the API's is.
@Suite("campaigns: funnel after a takeover, targets retention, the dashboard's cursor", .serialized)
struct CampaignFixesTests {
    /// One statement's first column on `fixture`'s data (SQLite: a read-only connection).
    static func query(_ fixture: StoreFixture, _ sql: String) async throws -> [String?] {
        switch fixture.backend {
        case .sqlite:
            let db = try SQLiteConnection(path: fixture.dbArgument, readOnly: true)
            return try db.prepared(sql).rows { $0.text(0) }
        case .postgres:
            return try await #require(fixture.database).execute(sql)
        }
    }

    static func open(_ fixture: StoreFixture) throws -> any ReceiptStore & CampaignStore & StatisticsStore {
        switch fixture.backend {
        case .sqlite: return try SQLiteStore(path: fixture.dbArgument)
        case .postgres: return try PostgresStore(url: fixture.dbArgument, log: { _ in }, clock: .caller)
        }
    }

    static func results(_ tokens: [String], provider: String = "apns") -> [CampaignTargetResult] {
        tokens.map {
            CampaignTargetResult(
                token: $0, outcome: "accepted", status: 200, reason: nil, provider: provider,
                send: PushSendRecord.TokenResult(deviceToken: $0, status: 200, apnsID: "id-\($0.prefix(6))", outcome: "accepted"))
        }
    }

    @Test("a takeover resends in-flight tokens: the push's sent counts each token once, the campaign counts the resends", arguments: StoreBackend.allCases)
    func funnelAfterTakeover(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try Self.open(fixture)
        defer { try? store.close() }
        let apns = CampaignHarness.tokens(3, prefix: "f1")
        let fcm = CampaignHarness.tokens(1, prefix: "f2")
        for token in apns { _ = try store.registerDevice(DeviceRegistration(token: token, provider: "apns", platform: "ios", registeredAtMs: 1)) }
        for token in fcm { _ = try store.registerDevice(DeviceRegistration(token: token, provider: "fcm", platform: "android", registeredAtMs: 1)) }
        let campaign = try store.createCampaign(CampaignStoreTests.draft("c-funnel", audience: .all(platform: nil), chunkSize: 10)).campaign
        #expect(campaign.targets == 4)

        // Owner a marks all in flight, hands them to the providers, and stalls past its lease.
        let first = try #require(try store.claimCampaignChunk(owner: "a", nowMs: 2_000, leaseMs: 100))
        let everyone = first.targets.map(\.token)
        #expect(try store.markCampaignTargetsInFlight(first, tokens: everyone, nowMs: 2_000, leaseMs: 100)?.count == 4)
        // Owner b takes the chunk over and sends them again (the crash case: counted as resends).
        let second = try #require(try store.claimCampaignChunk(owner: "b", nowMs: 2_500, leaseMs: 1_000))
        #expect(second.targets.allSatisfy { $0.wasInFlight })
        #expect(try store.markCampaignTargetsInFlight(second, tokens: everyone, nowMs: 2_500, leaseMs: 1_000)?.count == 4)
        try store.recordCampaignResults(
            second, results: Self.results(apns) + Self.results(fcm, provider: "fcm"), funnel: CampaignFunnelBatch(name: "1", sentAtMs: 2_600))
        // a's answers arrive late: neither the campaign nor the funnel counts them again.
        try store.recordCampaignResults(
            first, results: Self.results(apns) + Self.results(fcm, provider: "fcm"), funnel: CampaignFunnelBatch(name: "1", sentAtMs: 2_700))
        try store.releaseCampaignChunk(second, nowMs: 2_800, error: nil)

        let done = try #require(try store.campaign("c-funnel"))
        #expect(done.state == "finished")
        let counters: [Int] = [done.sent, done.accepted, done.inFlight, done.resentAfterCrash]
        #expect(counters == [4, 4, 0, 4])
        let push = try #require(try store.push("p-c-funnel"))
        // The number of tokens sent to, through both providers (one funnel batch each).
        #expect(push.sent == 4)
        #expect(push.accepted == 4)
        #expect(try await Self.query(fixture, "SELECT count(*) FROM push_tokens WHERE push_id = 'p-c-funnel'") == ["4"])
        let batches = try await Self.query(fixture, "SELECT batch_id FROM push_send_batches WHERE push_id = 'p-c-funnel' ORDER BY batch_id")
        #expect(batches == ["campaign:c-funnel:0:b:1:apns", "campaign:c-funnel:0:b:1:fcm"])
        // A result recorded without a funnel (not_sent) leaves the funnel alone.
        #expect(try store.push("p-c-funnel")?.sent == 4)
    }

    @Test(
        "finished and cancelled campaigns' targets are deleted in bounded batches after the retention; counters and running campaigns stay",
        arguments: StoreBackend.allCases)
    func targetsRetention(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try Self.open(fixture)
        defer { try? store.close() }
        let tokens = CampaignHarness.tokens(5, prefix: "a9")
        var finished = CampaignStoreTests.draft("c-old", audience: .tokens(tokens), chunkSize: 5)
        finished.provider = "apns"
        _ = try store.createCampaign(finished)
        let chunk = try #require(try store.claimCampaignChunk(owner: "w", nowMs: 2_000, leaseMs: 1_000))
        _ = try store.markCampaignTargetsInFlight(chunk, tokens: tokens, nowMs: 2_000, leaseMs: 1_000)
        try store.recordCampaignResults(chunk, results: Self.results(tokens))
        try store.releaseCampaignChunk(chunk, nowMs: 3_000, error: nil)
        var cancelled = CampaignStoreTests.draft("c-cancelled", audience: .tokens(Array(tokens.prefix(3))), chunkSize: 5)
        cancelled.provider = "apns"
        cancelled.sendAtMs = 50_000
        _ = try store.createCampaign(cancelled)
        _ = try store.cancelCampaign("c-cancelled", atMs: 4_000)
        var running = CampaignStoreTests.draft("c-running", audience: .tokens(tokens), chunkSize: 5)
        running.provider = "apns"
        _ = try store.createCampaign(running)
        let before = try #require(try store.campaign("c-old"))

        // Not yet due: nothing deleted, and no write.
        #expect(try store.purgeCampaignTargets(finishedBeforeMs: 3_000, limit: 2) == 0)
        #expect(try await Self.query(fixture, "SELECT count(*) FROM campaign_targets") == ["13"])
        // Due: at most 2 rows per call, the campaign that ended first first.
        var deleted: [Int] = []
        while true {
            let rows = try store.purgeCampaignTargets(finishedBeforeMs: 10_000, limit: 2)
            if rows == 0 { break }
            deleted.append(rows)
            #expect(deleted.count <= 10, "the purge ends")
            if deleted.count > 10 { break }
        }
        #expect(deleted == [2, 2, 1, 2, 1])
        let left = try await Self.query(fixture, "SELECT campaign_id FROM campaign_targets GROUP BY campaign_id ORDER BY campaign_id")
        #expect(left == ["c-running"])
        #expect(try await Self.query(fixture, "SELECT count(*) FROM campaign_targets") == ["5"])
        // The campaign answers as before.
        #expect(try store.campaign("c-old") == before)
        #expect(try store.campaign("c-cancelled")?.state == "cancelled")
        // The running campaign still sends: its chunk has its 5 targets.
        let next = try #require(try store.claimCampaignChunk(owner: "x", nowMs: 11_000, leaseMs: 1_000))
        #expect(next.campaign.id == "c-running")
        #expect(next.targets.count == 5)
    }

    @Test("GET /campaigns?before= and GET /v1/campaigns?before= refuse a malformed cursor with a 400 naming before")
    func dashboardCursor() async throws {
        let server = try InProcessServer()
        for bad in ["%3Cscript%3E", "ZZZ", String(repeating: "a", count: 65), "3f0c%20or%201"] {
            let page = try await server.client().request("GET", "/campaigns?before=\(bad)", headers: server.admin)
            #expect(page.status == 400, "\(bad): \(page.status)")
            #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("The parameter before is not valid"), "\(page.text.prefix(400))")
            #expect(!page.text.contains("<script>"))
            let api = try await server.client().request("GET", "/v1/campaigns?before=\(bad)", headers: server.admin)
            #expect(api.status == 400)
            let error = try api.json()["error"] as? [String: Any]
            #expect(error?["field"] as? String == "before", "\(api.text)")
        }
        // A well-formed cursor (an unknown campaign) is an empty page, not an error.
        let fine = try await server.client().request("GET", "/campaigns?before=00000000-0000-0000-0000-000000000000", headers: server.admin)
        #expect(fine.status == 200)
        let api = try await server.client().request("GET", "/v1/campaigns?before=00000000-0000-0000-0000-000000000000", headers: server.admin)
        #expect(api.status == 200)
    }

    @Test("--campaign-targets-days out of range or not a number exits 64 naming the flag")
    func retentionFlag() async throws {
        let directory = try Fixtures.temporaryDirectory("targets-days")
        defer { try? FileManager.default.removeItem(at: directory) }
        for bad in ["-1", "3651", "thirty", "1.5", "99999999999999999999"] {
            let run = try await ChildProcess(
                Fixtures.richpushBinary.path,
                [
                    "serve", "--port", "0", "--db", directory.appendingPathComponent("s.sqlite").path, "--admin-token", "test-admin-token-0123456789",
                    "--campaign-targets-days", bad,
                ]
            ).run(timeout: 30)
            #expect(run.status == 64, "\(bad): \(run.stderr)")
            #expect(run.stderr.contains("--campaign-targets-days"), "\(run.stderr)")
            #expect(run.stderr.contains("from 0 to 3650"), "\(run.stderr)")
        }
    }
}
