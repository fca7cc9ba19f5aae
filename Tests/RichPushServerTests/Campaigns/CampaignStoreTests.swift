import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The campaign tables in both stores (schema version 7): the upgrade from version 6 on a
/// database with devices, the audience snapshot in chunks, leases, takeover after a lease runs
/// out, the counters, the throttle's budget.
@Suite("campaign store", .serialized)
struct CampaignStoreTests {
    static func open(_ fixture: StoreFixture) throws -> any ReceiptStore & CampaignStore {
        switch fixture.backend {
        case .sqlite: return try SQLiteStore(path: fixture.dbArgument)
        case .postgres: return try PostgresStore(url: fixture.dbArgument, log: { _ in }, clock: .caller)
        }
    }

    /// Takes a version-7 database back to version 6 (the campaign tables dropped), as richpush
    /// before campaigns left it.
    static func downgradeToVersion6(_ fixture: StoreFixture) async throws {
        let drop = "DROP TABLE campaigns; DROP TABLE campaign_chunks; DROP TABLE campaign_targets; DROP TABLE campaign_budget; DROP TABLE device_tags;"
        switch fixture.backend {
        case .sqlite:
            let script = "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.executescript('''\(drop) PRAGMA user_version = 6;'''); db.close()"
            let run = try await ChildProcess("python3", ["-c", script, fixture.dbArgument]).run(timeout: 30)
            #expect(run.status == 0, "\(run.stderr)")
        case .postgres:
            let database = try #require(fixture.database)
            _ = try await database.execute(drop + " UPDATE richpush_meta SET value = '6' WHERE key = 'schema_version';")
        }
    }

    static func draft(_ id: String, audience: CampaignAudience, chunkSize: Int = 2, key: String? = nil) -> CampaignDraft {
        CampaignDraft(
            id: id, pushID: "p-\(id)", title: "T", payload: #"{"aps":{"alert":"hi"},"push_id":"p"}"#, topic: "com.example.app", pushType: "alert",
            priority: nil, expiration: nil, collapseID: "campaign-\(id)", provider: nil, audience: audience, sendAtMs: 1_000, perMinute: nil,
            chunkSize: chunkSize, createdAtMs: 1_000, idempotencyKey: key)
    }

    @Test("a version-6 database with devices upgrades to 7; tags, snapshot, leases, takeover and counters", arguments: StoreBackend.allCases)
    func upgradeAndLifecycle(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let tokens = CampaignHarness.tokens(5, prefix: "ab")
        var store = try Self.open(fixture)
        for token in tokens { _ = try store.registerDevice(DeviceRegistration(token: token, provider: "apns", platform: "ios", registeredAtMs: 10)) }
        try store.close()
        try await Self.downgradeToVersion6(fixture)

        store = try Self.open(fixture)
        defer { try? store.close() }
        // The devices stayed; tags are new.
        #expect(try store.device(tokens[0])?.platform == "ios")
        for token in tokens.prefix(3) {
            _ = try store.registerDevice(DeviceRegistration(token: token, provider: "apns", platform: "ios", registeredAtMs: 20, tags: ["beta"]))
        }
        // Registering again without tags keeps them; with [] removes them.
        _ = try store.registerDevice(DeviceRegistration(token: tokens[0], provider: "apns", platform: "ios", registeredAtMs: 30))
        _ = try store.registerDevice(DeviceRegistration(token: tokens[2], provider: "apns", platform: "ios", registeredAtMs: 30, tags: []))

        let (campaign, created) = try store.createCampaign(Self.draft("c1", audience: .tagsAny(["beta", "none"]), key: "k1"))
        #expect(created)
        #expect(campaign.targets == 2)
        #expect(campaign.state == "running")
        let again = try store.createCampaign(Self.draft("c2", audience: .tagsAny(["beta"]), key: "k1"))
        #expect(!again.created)
        #expect(again.campaign.id == "c1")

        // A chunk of 2; the first lease runs out with both in flight; a second owner takes over.
        let first = try #require(try store.claimCampaignChunk(owner: "a", nowMs: 2_000, leaseMs: 100))
        #expect(first.targets.map(\.token) == [tokens[0], tokens[1]])
        #expect(first.targets.allSatisfy { !$0.wasInFlight })
        #expect(try store.markCampaignTargetsInFlight(first, tokens: first.targets.map(\.token), nowMs: 2_000, leaseMs: 100) == [tokens[0], tokens[1]])
        #expect(try store.claimCampaignChunk(owner: "b", nowMs: 2_050, leaseMs: 100) == nil)
        // The first owner recorded one result before it died.
        try store.recordCampaignResults(first, results: [CampaignTargetResult(token: tokens[0], outcome: "accepted", status: 200, reason: nil)])
        let second = try #require(try store.claimCampaignChunk(owner: "b", nowMs: 2_200, leaseMs: 100))
        #expect(second.targets.map(\.token) == [tokens[1]])
        #expect(second.targets.first?.wasInFlight == true)
        // The dead owner's lease is gone.
        #expect(try store.markCampaignTargetsInFlight(first, tokens: [tokens[1]], nowMs: 2_210, leaseMs: 100) == nil)
        #expect(try store.markCampaignTargetsInFlight(second, tokens: [tokens[0], tokens[1]], nowMs: 2_210, leaseMs: 100) == [tokens[1]])
        var now = try #require(try store.campaign("c1"))
        #expect(now.inFlight == 1)
        #expect(now.resentAfterCrash == 1)
        try store.recordCampaignResults(
            second,
            results: [
                CampaignTargetResult(token: tokens[1], outcome: "token_inactive", status: 410, reason: "Unregistered"),
                CampaignTargetResult(token: tokens[0], outcome: "accepted", status: 200, reason: nil),
            ])
        try store.releaseCampaignChunk(second, nowMs: 2_300, error: nil)
        now = try #require(try store.campaign("c1"))
        #expect(now.state == "finished")
        #expect(now.finishedAtMs == 2_300)
        let counters: [Int] = [now.sent, now.accepted, now.failed, now.skipped, now.inFlight]
        #expect(counters == [2, 1, 1, 0, 0])

        // all, scheduled: nothing to claim before send_at; cancel.
        var later = Self.draft("c3", audience: .all(platform: "ios"), chunkSize: 2)
        later.sendAtMs = 10_000
        let scheduled = try store.createCampaign(later).campaign
        #expect(scheduled.state == "scheduled")
        #expect(scheduled.targets == 5)
        try store.advanceCampaigns(nowMs: 5_000)
        #expect(try store.claimCampaignChunk(owner: "c", nowMs: 5_000, leaseMs: 100) == nil)
        try store.advanceCampaigns(nowMs: 10_000)
        #expect(try store.campaign("c3")?.state == "running")
        let chunk = try #require(try store.claimCampaignChunk(owner: "c", nowMs: 10_001, leaseMs: 1_000))
        #expect(try store.cancelCampaign("c3", atMs: 10_002)?.state == "cancelled")
        #expect(try store.markCampaignTargetsInFlight(chunk, tokens: chunk.targets.map(\.token), nowMs: 10_003, leaseMs: 1_000) == nil)
        #expect(try store.claimCampaignChunk(owner: "d", nowMs: 20_000, leaseMs: 1_000) == nil)
        #expect(try store.campaigns(limit: 10, before: nil).map(\.id) == ["c3", "c1"])
        #expect(try store.campaigns(limit: 10, before: "c3").map(\.id) == ["c1"])

        // The throttle: 90 a minute is 1 or 2 a second, shared by every caller.
        #expect(try store.reserveCampaignBudget(campaignID: "c3", perMinute: 90, nowMs: 61_000, wanted: 5) == 2)
        #expect(try store.reserveCampaignBudget(campaignID: "c3", perMinute: 90, nowMs: 61_500, wanted: 5) == 0)
        #expect(try store.reserveCampaignBudget(campaignID: "c3", perMinute: 90, nowMs: 62_000, wanted: 5) == 1)
        #expect((0..<60).map { SQLiteStore.allowance(perMinute: 90, second: $0) }.reduce(0, +) == 90)
    }

    @Test("an audience snapshot of user ids and of tokens in request order, chunked by size", arguments: StoreBackend.allCases)
    func snapshots(_ backend: StoreBackend) async throws {
        let fixture = try await StoreFixture.make(backend)
        let store = try Self.open(fixture)
        defer { try? store.close() }
        let tokens = CampaignHarness.tokens(7, prefix: "cd")
        for (i, token) in tokens.enumerated() {
            _ = try store.registerDevice(
                DeviceRegistration(token: token, provider: i < 4 ? "apns" : "fcm", platform: "ios", userID: "u\(i % 2)", registeredAtMs: 1))
        }
        var users = Self.draft("u", audience: .userIDs(["u0", "nobody"]), chunkSize: 3)
        users.provider = "apns"
        #expect(try store.createCampaign(users).campaign.targets == 2)  // tokens 0 and 2 (apns, u0)
        var listed = Self.draft("t", audience: .tokens([tokens[6], tokens[1], tokens[3]]), chunkSize: 2)
        listed.provider = "apns"
        #expect(try store.createCampaign(listed).campaign.targets == 3)
        // Neither claimed yet: the older first (both made at 1,000 ms: by id, "t" before "u"); then
        // the campaigns take turns, chunk by chunk.
        let firstListed = try #require(try store.claimCampaignChunk(owner: "y", nowMs: 2_000, leaseMs: 1_000))
        #expect(firstListed.campaign.id == "t")
        // Request order: tokens[6] and tokens[1] in chunk 0 (handed out in token order), tokens[3] in chunk 1.
        #expect(firstListed.chunk == 0)
        #expect(firstListed.targets.map(\.token) == [tokens[1], tokens[6]])
        let firstUsers = try #require(try store.claimCampaignChunk(owner: "x", nowMs: 2_000, leaseMs: 1_000))
        #expect(firstUsers.campaign.id == "u")
        #expect(firstUsers.targets.map(\.token) == [tokens[0], tokens[2]])
        let secondListed = try #require(try store.claimCampaignChunk(owner: "z", nowMs: 2_001, leaseMs: 1_000))
        #expect(secondListed.campaign.id == "t")
        #expect(secondListed.chunk == 1)
        #expect(secondListed.targets.map(\.token) == [tokens[3]])
        #expect(firstListed.targets.allSatisfy { $0.provider == "apns" })
    }
}
