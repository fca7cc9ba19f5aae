import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// Campaigns over several `richpush serve` on one PostgreSQL (issue 21): the instances share
/// the chunks (`FOR UPDATE SKIP LOCKED`), take over a killed one's, share one idempotency key,
/// start a scheduled campaign with one instance stopped, and keep one throttle between them.
@Suite("campaigns over several richpush serve on one PostgreSQL", .serialized)
struct CampaignPostgresTests {
    /// Registers `count` iOS devices straight in the database (one statement), tokens
    /// `prefix` + the number in hex, as `CampaignHarness.tokens` makes them.
    static func seedDevices(_ database: PostgresTestDatabase, count: Int, prefix: String) async throws -> [String] {
        let width = 64 - prefix.count
        _ = try await database.execute(
            """
            INSERT INTO devices (device_token, provider, platform, registered_at_ms)
            SELECT '\(prefix)' || lpad(to_hex(n), \(width), '0'), 'apns', 'ios', 1 FROM generate_series(0, \(count - 1)) AS n
            """)
        return CampaignHarness.tokens(count, prefix: prefix)
    }

    /// Every target of the campaign has exactly one result in the store.
    static func expectEveryTargetDone(_ database: PostgresTestDatabase, _ id: String, targets: Int) async throws {
        let rows = try await database.execute("SELECT state || ':' || count(*) FROM campaign_targets WHERE campaign_id = '\(id)' GROUP BY state")
        #expect(rows == ["done:\(targets)"], "\(rows)")
    }

    @Test("20,000 devices to all over 3 instances: every token exactly one send and one result")
    func threeInstances() async throws {
        // The C mock (benchmarks/mock-apns): 20,000 answers to 3 instances at once are more than
        // the Python mock serves in time on a loaded 2-core machine (a new connection's TLS
        // handshake waited out the 10 s connect timeout behind 1,500 streams in flight).
        let mock = try await CMockAPNs()
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let servers = try await MultiInstanceTests.startInstances(3, url: database.url, extraArguments: mock.serveArguments())
        let tokens = try await Self.seedDevices(database, count: 20_000, prefix: "a0")
        let id = try await CampaignHarness.createID(servers[0], ["audience": ["all": true], "push_id": "pg-all", "title": "Everyone"])
        let done = try await CampaignHarness.waitFor(servers, id, timeout: 120)
        try await CampaignHarness.expectComplete(done, targets: 20_000, accepted: 20_000, mock: mock, tokens: tokens)
        try await Self.expectEveryTargetDone(database, id, targets: 20_000)
        // Each instance answers the same figures; the push's funnel has every send once.
        for server in servers {
            let c = try await CampaignHarness.campaign(server, id)
            #expect(c["accepted"] as? Int == 20_000)
        }
        let push = try await servers[1].push("pg-all")
        #expect(push["sent"] as? Int == 20_000)
        #expect(push["accepted"] as? Int == 20_000)
        // The chunks were shared: every instance sent some (each over its own APNs connection).
        #expect(try await mock.stats()["device_connections"] == .int(3))
    }

    @Test("kill -9 of one of 3 instances mid-campaign: the others finish it; only its in-flight tokens go twice, counted, with the collapse id")
    func killOneInstance() async throws {
        let mock = try await MockAPNsProcess(delayMs: 300)
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let arguments = mock.serveArguments() + ["--campaign-chunk-size", "100", "--campaign-lease-seconds", "2"]
        let servers = try await MultiInstanceTests.startInstances(3, url: database.url, extraArguments: arguments)
        let tokens = try await Self.seedDevices(database, count: 6_000, prefix: "b1")
        let id = try await CampaignHarness.createID(servers[0], ["audience": ["all": true], "push_id": "pg-kill", "title": "Crash"])
        _ = try await CampaignHarness.waitFor(servers, id, timeout: 60) { ($0["sent"] as? Int ?? 0) >= 1_000 }
        try await servers[2].kill9()
        let survivors = Array(servers.prefix(2))
        let done = try await CampaignHarness.waitFor(survivors, id, timeout: 120)
        #expect(done["state"] as? String == "finished")
        #expect(done["accepted"] as? Int == 6_000)
        #expect(done["in_flight"] as? Int == 0)
        try await Self.expectEveryTargetDone(database, id, targets: 6_000)
        let resent = done["resent_after_crash"] as? Int ?? -1
        let perToken = try await CampaignHarness.perToken(mock)
        #expect(Set(perToken.keys) == Set(tokens))
        #expect(perToken.values.allSatisfy { $0 == 1 || $0 == 2 }, "\(perToken.filter { $0.value > 2 })")
        let twice = perToken.values.filter { $0 == 2 }.count
        // At most the dead instance's 2 workers' chunks were in flight.
        #expect(twice <= resent && resent <= 200, "\(twice) sent twice, \(resent) counted resent")
        let collapse = try await CampaignHarness.collapseIDs(mock)
        #expect(collapse == ["campaign-\(id)": perToken.values.reduce(0, +)], "\(collapse)")
    }

    @Test("the same Idempotency-Key 5 times at once on 3 instances: one campaign, one send per token")
    func idempotencyAcrossInstances() async throws {
        let mock = try await MockAPNsProcess(delayMs: 50)
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let servers = try await MultiInstanceTests.startInstances(3, url: database.url, extraArguments: mock.serveArguments())
        let tokens = try await Self.seedDevices(database, count: 500, prefix: "c2")
        let json = try CampaignHarness.json(["audience": ["all": true], "push_id": "pg-idem", "title": "Once"])
        let answers = try await withThrowingTaskGroup(of: HTTPTestClient.Response.self) { group in
            for i in 0..<5 {
                let server = servers[i % 3]
                group.addTask { try await CampaignHarness.create(server, json: json, key: "pg-campaign-key-1") }
            }
            var out: [HTTPTestClient.Response] = []
            for try await r in group { out.append(r) }
            return out
        }
        #expect(answers.allSatisfy { $0.status == 202 || $0.status == 409 }, "\(answers.map { "\($0.status) \($0.text)" })")
        let ids = Set(answers.filter { $0.status == 202 }.compactMap { try? $0.json()["campaign_id"] as? String })
        #expect(ids.count == 1)
        let id = try #require(ids.first)
        let done = try await CampaignHarness.waitFor(servers, id, timeout: 60)
        try await CampaignHarness.expectComplete(done, targets: 500, accepted: 500, mock: mock, tokens: tokens)
        #expect(try await database.execute("SELECT count(*) FROM campaigns") == ["1"])
        for server in servers {
            let replay = try await CampaignHarness.create(server, json: json, key: "pg-campaign-key-1")
            #expect(replay.status == 202)
            #expect(try replay.json()["campaign_id"] as? String == id)
        }
    }

    @Test("send_at in 3 s, the instance that took it stopped: another starts it on time")
    func scheduledWithOneStopped() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let servers = try await MultiInstanceTests.startInstances(2, url: database.url, extraArguments: mock.serveArguments())
        let tokens = try await Self.seedDevices(database, count: 300, prefix: "d3")
        let at = Date().addingTimeInterval(3)
        let created = try await CampaignHarness.create(
            servers[0], ["audience": ["all": true], "title": "At three", "send_at": ISO8601DateFormatter().string(from: at)])
        #expect(created.status == 202)
        #expect(try created.json()["state"] as? String == "scheduled")
        let id = try #require(try created.json()["campaign_id"] as? String)
        #expect(await servers[0].terminate() == 0)
        let done = try await CampaignHarness.waitFor([servers[1]], id, timeout: 30)
        let started = try #require((done["started_at"] as? String).flatMap(CampaignHarness.date))
        #expect(started.timeIntervalSince(at) > -1.0 && started.timeIntervalSince(at) < 2.0, "started \(started) for \(at)")
        try await CampaignHarness.expectComplete(done, targets: 300, accepted: 300, mock: mock, tokens: tokens)
    }

    @Test("per_minute 1,200 over 2 instances (4 workers): no second above its allowance, the rate within 10 %")
    func throttleAcrossInstances() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let servers = try await MultiInstanceTests.startInstances(2, url: database.url, extraArguments: mock.serveArguments())
        let tokens = try await Self.seedDevices(database, count: 400, prefix: "e4")
        let id = try await CampaignHarness.createID(servers[0], ["audience": ["all": true], "title": "Slowly", "per_minute": 1_200])
        let done = try await CampaignHarness.waitFor(servers, id, timeout: 60)
        try await CampaignHarness.expectComplete(done, targets: 400, accepted: 400, mock: mock, tokens: tokens)
        // The rate from the store's budget, per second of the database's clock: no second above its
        // allowance (1,200 a minute = 20 a second), 400 in all. (Measured from started_at to
        // finished_at, as this test once did, the window is up to a second short of the seconds
        // the sends used: the first second's sends go out the moment the campaign starts, the
        // last second's at its beginning; 400 sends over 20 budget seconds then read as 1,324 a
        // minute over 18.1 s, with no second over 20.)
        var seconds: [Int: Int] = [:]
        for row in try await database.execute("SELECT second || ' ' || used FROM campaign_budget WHERE campaign_id = '\(id)' AND used > 0") {
            let parts = (row ?? "").split(separator: " ").compactMap { Int($0) }
            if parts.count == 2 { seconds[parts[0]] = parts[1] }
        }
        #expect(seconds.values.allSatisfy { $0 <= 20 }, "\(seconds.filter { $0.value > 20 })")
        #expect(seconds.values.reduce(0, +) == 400)
        let span = (seconds.keys.max() ?? 0) - (seconds.keys.min() ?? 0) + 1
        // 400 at 20 a second takes at least 20 seconds of budget; within 10 % of the rate: at most 22.
        #expect(span >= 20 && span <= 22, "400 sends over \(span) budget seconds: \(400 * 60 / max(span, 1)) a minute")
        // Chunks of 100 (5 s at the rate each): both instances sent, under the one budget.
        #expect(try await database.execute("SELECT count(*) FROM campaign_chunks WHERE campaign_id = '\(id)'") == ["4"])
        #expect(try await mock.stats()["device_connections"] == .int(2))
    }
}
