import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// Fair campaigns end to end (issue 29 item 3): a campaign throttled to 60 a minute, then an
/// unthrottled one started after it. Before, the throttled campaign's chunks held both workers
/// (each waiting for its next second's budget), and the second campaign made no send for 13–20 s.
/// Now the second runs at once and finishes while the first is still sending, and the first keeps
/// its rate: its budget in the store shows one send in each of 30 seconds, none more.
///
/// In `scripts/test.sh`'s TIMING list: "finishes while the first still sends" is a race with the
/// first campaign's 30 s.
@Suite("campaigns: a throttled campaign holds no worker", .serialized)
struct CampaignFairnessTests {
    /// The throttled campaign's per-second budget as the store keeps it: second → sends.
    typealias Budget = [Int: Int]

    /// Runs the scenario against `servers` (the second campaign is created on the last one).
    static func scenario(_ servers: [ServerProcess], mock: MockAPNsProcess, budget: (String) async throws -> Budget) async throws {
        let slowTokens = CampaignHarness.tokens(30, prefix: "f1")
        let fastTokens = CampaignHarness.tokens(600, prefix: "f2")
        let slow = try await CampaignHarness.createID(
            servers[0], ["audience": ["tokens": slowTokens], "push_id": "fair-slow", "title": "Slowly", "per_minute": 60])
        // The throttled campaign is under way (its chunks would hold the workers before).
        _ = try await CampaignHarness.waitFor(servers, slow, timeout: 60) { ($0["sent"] as? Int ?? 0) >= 2 }
        let fast = try await CampaignHarness.createID(
            servers[servers.count - 1], ["audience": ["tokens": fastTokens], "push_id": "fair-fast", "title": "At once"])
        let fastDone = try await CampaignHarness.waitFor(servers, fast, timeout: 120)
        // The second finished while the first was still sending.
        let slowThen = try await CampaignHarness.campaign(servers[0], slow)
        #expect(slowThen["state"] as? String == "running", "\(slowThen)")
        #expect((slowThen["sent"] as? Int ?? 30) < 30, "the throttled campaign was done before the second finished: \(slowThen)")
        #expect(fastDone["accepted"] as? Int == 600)
        let slowDone = try await CampaignHarness.waitFor(servers, slow, timeout: 120)
        #expect(slowDone["accepted"] as? Int == 30)
        let perToken = try await CampaignHarness.perToken(mock)
        for token in slowTokens + fastTokens { #expect(perToken[token] == 1, "token \(token): \(perToken[token] ?? 0) sends") }
        // Its rate: one send in each of 30 seconds (60 a minute), never two in one second.
        let seconds = try await budget(slow)
        #expect(seconds.values.allSatisfy { $0 <= 1 }, "\(seconds.filter { $0.value > 1 })")
        #expect(seconds.values.reduce(0, +) == 30)
        let span = (seconds.keys.max() ?? 0) - (seconds.keys.min() ?? 0) + 1
        // Kept its rate: 30 sends over about 30 seconds (the second campaign took no second from it).
        #expect(span >= 30 && span <= 45, "30 sends over \(span) s")
    }

    @Test("SQLite, 2 workers: the unthrottled campaign runs at once; the throttled one keeps 60 a minute")
    func sqlite() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        try await Self.scenario([server], mock: mock) { id in try await Self.sqliteBudget(server.database, id) }
        #expect(await server.terminate() == 0)
    }

    @Test("PostgreSQL, 2 instances × 2 workers: the same, the budget shared")
    func postgres() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let servers = try await MultiInstanceTests.startInstances(2, url: database.url, extraArguments: mock.serveArguments())
        try await Self.scenario(servers, mock: mock) { id in
            var out: Budget = [:]
            for row in try await database.execute("SELECT second || ' ' || used FROM campaign_budget WHERE campaign_id = '\(id)' AND used > 0") {
                let parts = (row ?? "").split(separator: " ").compactMap { Int($0) }
                if parts.count == 2 { out[parts[0]] = parts[1] }
            }
            return out
        }
        for server in servers { #expect(await server.terminate() == 0) }
    }

    /// The `campaign_budget` rows of a campaign in a SQLite file (read with Python's sqlite3 while
    /// the server runs: WAL lets a reader in).
    static func sqliteBudget(_ file: URL, _ id: String) async throws -> Budget {
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            for second, used in db.execute("SELECT second, used FROM campaign_budget WHERE campaign_id = ? AND used > 0", (sys.argv[2],)):
                print(second, used)
            """
        let run = try await ChildProcess("python3", ["-c", script, file.path, id]).run(timeout: 30)
        guard run.status == 0 else { throw TestSupportError("reading campaign_budget: \(run.stderr)") }
        var out: Budget = [:]
        for line in run.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ").compactMap { Int($0) }
            if parts.count == 2 { out[parts[0]] = parts[1] }
        }
        return out
    }
}
