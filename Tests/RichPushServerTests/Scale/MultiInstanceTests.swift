import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Several `richpush serve` processes on one PostgreSQL database (issue 9): the same answers
/// from each, nothing acknowledged is lost when an instance is killed or the database stops,
/// and N instances starting at once on an empty database make one schema.
@Suite("several richpush serve on one PostgreSQL", .serialized)
struct MultiInstanceTests {
    /// Starts `count` instances on `url` at the same moment (instance i gets `perInstance[i]`
    /// after `extraArguments`).
    static func startInstances(_ count: Int, url: String, extraArguments: [String] = [], perInstance: [[String]] = []) async throws -> [ServerProcess] {
        try await withThrowingTaskGroup(of: (Int, ServerProcess).self) { group in
            for i in 0..<count {
                let own = i < perInstance.count ? perInstance[i] : []
                group.addTask { (i, try await ServerProcess(dbArgument: url, extraArguments: extraArguments + own)) }
            }
            var out: [(Int, ServerProcess)] = []
            for try await started in group { out.append(started) }
            return out.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// `push/receipt_id` of every delivered receipt with an id in the database.
    static func storedKeys(_ database: PostgresTestDatabase) async throws -> Set<String> {
        Set(try await database.execute("SELECT push_id || '/' || receipt_id FROM receipts WHERE receipt_id IS NOT NULL").compactMap { $0 })
    }

    /// A counter from an instance's `/metrics`.
    static func metric(_ server: ServerProcess, _ name: String) async throws -> Int {
        let text = try await server.client().request("GET", "/metrics").text
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
    }

    @Test("3 instances, 8 clients x 5,000 receipts with 10 % duplicates spread over them: exact counts from each instance")
    func threeInstancesExactCounts() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        // The default (2 writers), 3 writers, and the smallest pool (1 writer, 1 reader).
        let servers = try await Self.startInstances(
            3, url: database.url, perInstance: [[], ["--db-connections", "5"], ["--db-connections", "2"]])
        // 36,000 distinct receipts over 12 pushes and 4,000 repeats of earlier ones (often of
        // another client's, so the two copies race through different instances): 40,000 posts.
        var generator = SystemRandomNumberGenerator()
        var posts = (0..<36_000).map { ScaleLoad.Post(push: "scale-\($0 % 12)", id: "r\($0)") }
        for _ in 0..<4_000 { posts.append(posts[Int.random(in: 0..<36_000, using: &generator)]) }
        posts.shuffle(using: &generator)
        let all = posts
        let load = ScaleLoad()
        await load.run(clients: 8, postsPerClient: 5_000, ports: servers.map(\.port)) { k, i in all[i * 8 + k] }
        #expect(load.statuses == [202: 40_000])
        #expect(load.transportFailures == 0)

        #expect(servers[0].child.standardOutput.contains("4 connections: 2 for receipt batches, 2 for reads and sends"))
        #expect(servers[1].child.standardOutput.contains("5 connections: 3 for receipt batches, 2 for reads and sends"))
        #expect(servers[2].child.standardOutput.contains("2 connections: 1 for receipt batches, 1 for reads and sends"))

        // Every instance reads the same figures from the shared tables.
        var lists: [String] = []
        for server in servers {
            var delivered = 0
            for p in 0..<12 {
                let push = try await server.push("scale-\(p)")
                #expect(push["delivered"] as? Int == 3_000, "instance \(server.port), scale-\(p)")
                delivered += push["delivered"] as? Int ?? 0
            }
            #expect(delivered == 36_000)
            lists.append(try await server.client().request("GET", "/v1/pushes", headers: server.admin).text)
        }
        #expect(Set(lists).count == 1)
        // Each instance counted what it stored itself: together exactly the distinct ones, and
        // every repeat was a duplicate wherever it landed.
        var accepted = 0, duplicates = 0
        for server in servers {
            accepted += try await Self.metric(server, "richpush_receipts_accepted_total")
            duplicates += try await Self.metric(server, "richpush_receipts_duplicate_total")
        }
        #expect(accepted == 36_000)
        #expect(duplicates == 4_000)
        #expect(try await database.execute("SELECT count(*) FROM receipts") == ["36000"])
        for server in servers { #expect(await server.terminate() == 0) }
    }

    @Test("kill -9 of one instance and SIGTERM of another under load: every receipt that got a 202 is stored, the last keeps serving")
    func killOneInstance() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let servers = try await Self.startInstances(3, url: database.url)
        let load = ScaleLoad()
        let victim = servers[0]
        let killed = KilledPorts()
        let (keptServing, afterTerm, termStatus): (Bool, Bool, Int32) = await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await load.run(clients: 6, postsPerClient: 1_000_000, ports: servers.map(\.port), skip: { killed.ports }) { k, i in
                    ScaleLoad.Post(push: "kill-\(k % 4)", id: "\(k)-\(i)")
                }
            }
            _ = await ScaleLoad.wait(seconds: 30) { load.ackCount >= 3_000 }
            try? await victim.kill9()
            killed.add(victim.port)
            let before = load.ackCount
            // The two others keep acknowledging.
            let keptServing = await ScaleLoad.wait(seconds: 30) { load.ackCount >= before + 2_000 }
            // A rolling restart of the second: SIGTERM under load, exit 0; the third takes over.
            let status = await servers[1].terminate()
            killed.add(servers[1].port)
            let beforeLast = load.ackCount
            let lastServing = await ScaleLoad.wait(seconds: 30) { load.ackCount >= beforeLast + 1_000 }
            load.stop()
            await group.waitForAll()
            return (keptServing, lastServing, status)
        }
        #expect(keptServing)
        #expect(afterTerm)
        #expect(termStatus == 0)
        #expect(servers[1].child.standardError.contains("stopped cleanly"))
        #expect(Set(load.statuses.keys).isSubset(of: [202, 503]))
        let acked = load.acked
        #expect(acked.count >= 5_000)
        let stored = try await Self.storedKeys(database)
        let missing = acked.subtracting(stored)
        #expect(missing.count == 0, "acknowledged but not stored, e.g. \(missing.sorted().prefix(5))")
        // The survivors agree with the database.
        let total = try await database.execute("SELECT COALESCE(SUM(receipts), 0) FROM push_counts WHERE event = 'delivered'").first ?? nil
        var fromInstance = 0
        for p in 0..<4 { fromInstance += try await servers[2].push("kill-\(p)")["delivered"] as? Int ?? 0 }
        #expect(String(fromInstance) == total)
        #expect(fromInstance == stored.count)
        #expect(await servers[2].terminate() == 0)
    }

    @Test("PostgreSQL stopped under load: 503s and /healthz 503 (no secrets), no 202 without a commit, recovery after restart")
    func databaseStopsAndComesBack() async throws {
        let cluster = try await PostgresTestCluster(label: "stop")
        defer { cluster.destroy() }
        let database = try await cluster.makeDatabase()
        let url = database.url.replacingOccurrences(of: "richpush@", with: "richpush:hunter2@")
        let servers = try await Self.startInstances(2, url: url)
        let load = ScaleLoad()
        let (healthDown, healthBack, acksAfterRestart) = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await load.run(clients: 4, postsPerClient: 1_000_000, ports: servers.map(\.port)) { k, i in
                    ScaleLoad.Post(push: "stop-\(k % 2)", id: "\(k)-\(i)")
                }
            }
            _ = await ScaleLoad.wait(seconds: 30) { load.ackCount >= 1_000 }
            try await cluster.stop()
            // While it is down: receipts get 503, /healthz says so.
            _ = await ScaleLoad.wait(seconds: 10) { (load.statuses[503] ?? 0) >= 50 }
            var down: [HTTPTestClient.Response] = []
            for server in servers { down.append(try await server.client().request("GET", "/healthz")) }
            for server in servers { #expect(try await Self.metric(server, "richpush_store_up") == 0) }
            try await Task.sleep(for: .milliseconds(500))
            try await cluster.start()
            // Each instance reconnects by itself.
            var back: [Bool] = []
            for server in servers {
                let client = server.client()
                back.append(await ScaleLoad.wait(seconds: 20) { (try? await client.request("GET", "/healthz").status) == 200 })
            }
            let acksAtRestart = load.ackCount
            _ = await ScaleLoad.wait(seconds: 20) { load.ackCount >= acksAtRestart + 1_000 }
            let after = load.ackCount - acksAtRestart
            load.stop()
            try await group.waitForAll()
            return (down, back, after)
        }
        #expect((load.statuses[503] ?? 0) > 0)
        #expect(Set(load.statuses.keys).isSubset(of: [202, 503]))
        for response in healthDown {
            #expect(response.status == 503)
            let body = response.text
            #expect(body.contains("\"status\" : \"unavailable\""))
            #expect(body.contains("database unreachable"))
            for secret in ["hunter2", "127.0.0.1", String(cluster.port), "postgres://", "richpush@"] {
                #expect(!body.contains(secret), "healthz leaks \(secret)")
            }
        }
        #expect(healthBack == [true, true])
        for server in servers { #expect(try await Self.metric(server, "richpush_store_up") == 1) }
        #expect(acksAfterRestart >= 1_000)
        // No 202 without a commit: every acknowledged receipt is in the database.
        let acked = load.acked
        let stored = try await Self.storedKeys(database)
        let missing = acked.subtracting(stored)
        #expect(missing.count == 0, "acknowledged but not stored, e.g. \(missing.sorted().prefix(5))")
        for server in servers {
            #expect(server.child.standardError.contains("is unreachable"))
            #expect(server.child.standardError.contains("is reachable again"))
            #expect(!server.child.standardError.contains("hunter2"))
            #expect(await server.terminate() == 0)
        }
    }

    @Test("3 instances started at once on an empty database: all start, one schema")
    func concurrentFirstStart() async throws {
        let cluster = try await PostgresTestCluster.shared()
        for _ in 0..<3 {
            let database = try await cluster.makeDatabase()
            let servers = try await Self.startInstances(3, url: database.url)
            #expect(servers.count == 3)
            for server in servers { #expect(!server.child.standardError.contains("error")) }
            #expect(try await database.execute("SELECT value FROM richpush_meta WHERE key = 'schema_version'") == [String(PostgresSchema.version)])
            let tables = try await database.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
            #expect(tables == [String(PostgresSchema.tables.count)])
            // Each serves.
            for server in servers {
                #expect(try await server.client().post("/v1/receipts", form: "push_id=first&receipt_id=\(server.port)").status == 202)
            }
            #expect(try await servers[0].push("first")["delivered"] as? Int == 3)
            for server in servers { #expect(await server.terminate() == 0) }
        }
    }

    @Test("POST /v1/pushes is recorded by whichever instance took it; every instance shows the funnel")
    func sendsFromAnyInstance() async throws {
        let token = MockAPNsProcess.token("aa")
        let gone = MockAPNsProcess.token("bb")
        let mock = try await MockAPNsProcess(script: [gone: [["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000]]])
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let sender = try await ServerProcess(dbArgument: database.url, extraArguments: mock.serveArguments())
        let others = try await Self.startInstances(2, url: database.url)
        let body = #"{"push_id":"multi-1","tokens":["\#(token)","\#(gone)"],"title":"Hello","body":"World"}"#
        let sent = try await sender.client().postJSON("/v1/pushes", body, headers: sender.admin)
        #expect(sent.status == 200, "\(sent.text)")
        #expect(try await others[0].client().post("/v1/receipts", form: "push_id=multi-1&receipt_id=dev-a").status == 202)
        #expect(try await others[1].client().post("/v1/receipts", form: "push_id=multi-1&receipt_id=dev-a").status == 202)
        for server in [sender] + others {
            let push = try await server.push("multi-1")
            #expect(push["sent"] as? Int == 2)
            #expect(push["accepted"] as? Int == 1)
            #expect(push["delivered"] as? Int == 1)
            #expect(push["display_rate"] as? Double == 1.0)
        }
        let state = try await database.execute("SELECT state || ' ' || since_ms FROM device_tokens WHERE device_token = '\(gone)'")
        #expect(state == ["inactive 1700000000000"])
        for server in [sender] + others { #expect(await server.terminate() == 0) }
    }

    @Test(
        "the same batch of sends posted to 3 instances at once is counted once; a device registered on one is reached by user id from another, and its 410 skipped everywhere"
    )
    func recordedBatchesAndDevicesAcrossInstances() async throws {
        let gone = MockAPNsProcess.token("cc")
        // APNs' timestamp after the registration below: the token is inactive since then.
        let later = Int(Date().timeIntervalSince1970 * 1000) + 60_000
        let mock = try await MockAPNsProcess(script: [gone: [["status": 410, "reason": "Unregistered", "timestamp": later]]])
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let servers = try await Self.startInstances(3, url: database.url, extraArguments: mock.serveArguments())
        let batch = #"{"batch_id":"os-42","source":"onesignal","sent":1200,"accepted":1180}"#
        let ports = servers.map(\.port), admin = servers[0].admin
        let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
            for port in ports {
                group.addTask { try await HTTPTestClient(port: port).postJSON("/v1/pushes/os-push/sends", batch, headers: admin).body }
            }
            var out: [Data] = []
            for try await body in group { out.append(body) }
            return out
        }
        let answers = try bodies.map { try RichPushJSONValue.parse($0) }
        #expect(answers.filter { $0["recorded"] == .bool(true) }.count == 1)
        #expect(answers.filter { $0["duplicate"] == .bool(true) }.count == 2)
        for server in servers {
            let push = try await server.push("os-push")
            #expect(push["sent"] as? Int == 1200)
            #expect(push["accepted"] as? Int == 1180)
            #expect(push["sources"] as? [String] == ["onesignal"])
        }
        // Registered through instance 0, reached by user id through instance 1; the 410 recorded
        // there is skipped by instance 2.
        let register = #"{"token":"\#(gone)","platform":"ios","user_id":"u-7"}"#
        #expect(try await servers[0].client().postJSON("/v1/devices", register, headers: servers[0].admin).status == 201)
        let first = try await servers[1].client().postJSON(
            "/v1/pushes", #"{"push_id":"u7-1","user_ids":["u-7"],"title":"t","body":"b"}"#, headers: servers[1].admin)
        #expect(try first.json()["sent"] as? Int == 1)
        let second = try await servers[2].client().postJSON(
            "/v1/pushes", #"{"push_id":"u7-2","user_ids":["u-7"],"title":"t","body":"b"}"#, headers: servers[2].admin)
        #expect(try second.json()["skipped"] as? Int == 1)
        #expect(try second.json()["sent"] as? Int == 0)
        for server in servers { #expect(await server.terminate() == 0) }
    }

    @Test("deploy/nginx/richpush.conf in front of 2 instances: receipts spread over both, the dashboard sticks, a dead instance is skipped")
    func nginxSample() async throws {
        let database = try await PostgresTestCluster.shared().makeDatabase()
        // As deploy/systemd/richpush@.service runs them: nginx on this host is the trusted proxy.
        let servers = try await Self.startInstances(2, url: database.url, extraArguments: ["--trusted-proxy", "127.0.0.1"])
        let directory = try Fixtures.temporaryDirectory("nginx")
        defer { try? FileManager.default.removeItem(at: directory) }
        // The shipped file, with our instances' ports and a free port to listen on.
        let upstreams = servers.map { "    server 127.0.0.1:\($0.port) max_fails=3 fail_timeout=10s;" }.joined(separator: "\n")
        let started = try ShippedNginx(upstreams: upstreams, in: directory, workerConnections: 1024)
        let nginx = started.process, port = started.port
        defer { withExtendedLifetime(started) {} }
        #expect(started.replacedUpstreams == 2, "both upstreams list the instances")
        // SIGTERM, not SIGKILL: the master takes its workers down with it.
        defer { if nginx.isRunning { kill(nginx.process.processIdentifier, SIGTERM) } }
        let front = HTTPTestClient(port: port)
        #expect(await ScaleLoad.wait(seconds: 20) { (try? await front.request("GET", "/healthz").status) == 200 }, "nginx: \(nginx.standardError)")

        let load = ScaleLoad()
        await load.run(clients: 4, postsPerClient: 150, ports: [port]) { k, i in ScaleLoad.Post(push: "lb", id: "\(k)-\(i)") }
        #expect(load.statuses == [202: 600])
        let perInstance = [
            try await Self.metric(servers[0], "richpush_receipts_accepted_total"), try await Self.metric(servers[1], "richpush_receipts_accepted_total"),
        ]
        #expect(perInstance.reduce(0, +) == 600)
        #expect(perInstance.allSatisfy { $0 > 0 }, "\(perInstance)")
        let figures = try await front.request("GET", "/v1/pushes/lb", headers: servers[0].admin)
        #expect(try figures.json()["delivered"] as? Int == 600)
        // /metrics is never served through the proxy (scrape each instance directly).
        #expect(try await front.request("GET", "/metrics").status == 403)

        // The dashboard: log in through nginx, then every page comes from the same instance.
        // As a browser on the dashboard's page sends it: Origin is the address nginx listens on.
        let login = try await front.post("/login", form: "token=\(ServerProcess.token)", headers: ["Origin": "http://127.0.0.1:\(port)"])
        #expect(login.status == 303)
        #expect(try await front.post("/login", form: "token=\(ServerProcess.token)", headers: ["Origin": "http://127.0.0.1:1"]).status == 403)
        let cookie = try #require(login.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        for _ in 0..<10 {
            #expect(try await front.request("GET", "/", headers: ["Cookie": cookie]).status == 200)
        }

        // One instance dies: nginx passes its share to the other; nothing is lost.
        try await servers[1].kill9()
        let after = ScaleLoad()
        await after.run(clients: 2, postsPerClient: 100, ports: [port]) { k, i in ScaleLoad.Post(push: "lb", id: "after-\(k)-\(i)") }
        #expect(after.statuses == [202: 200])
        #expect(try await front.request("GET", "/v1/pushes/lb", headers: servers[0].admin).json()["delivered"] as? Int == 800)
        #expect(await servers[0].terminate() == 0)
        await nginx.terminate(grace: 10)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("nginx.pid").path), "nginx stopped cleanly")
    }

    @Test("a database that cannot be reached at start: exit 1 naming host and port, never the password")
    func unreachableAtStart() async throws {
        // Reserved for the test: nothing listens there, and no other process can start to.
        let reservation = try PortReservation()
        defer { withExtendedLifetime(reservation) {} }
        let port = reservation.port
        let result = try await ChildProcess(
            Fixtures.richpushBinary.path,
            ["serve", "--port", "0", "--db", "postgresql://app:hunter2@127.0.0.1:\(port)/richpush", "--admin-token", ServerProcess.token]
        ).run(timeout: 60)
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot connect to PostgreSQL at 127.0.0.1:\(port)"))
        #expect(result.stderr.contains("Connection refused"))
        #expect(result.stderr.contains("and the --db URL or RICHPUSH_DB_URL (user, password, database name, sslmode)"), "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2"))
        #expect(!result.stdout.contains("PORT"))
        // The same from the environment.
        let fromEnvironment = try await ChildProcess(
            Fixtures.richpushBinary.path, ["serve", "--port", "0", "--admin-token", ServerProcess.token],
            environment: ["RICHPUSH_DB_URL": "postgres://app:hunter2@127.0.0.1:\(port)/richpush"]
        ).run(timeout: 60)
        #expect(fromEnvironment.status == 1)
        #expect(fromEnvironment.stderr.contains("127.0.0.1:\(port)"))
        #expect(!fromEnvironment.stderr.contains("hunter2"))
    }
}

/// Ports of instances the test killed (read by the load's clients).
final class KilledPorts: @unchecked Sendable {
    private let lock = NSLock()
    private var set = Set<Int>()
    var ports: Set<Int> { lock.withLock { set } }
    func add(_ port: Int) { lock.withLock { _ = set.insert(port) } }
}
