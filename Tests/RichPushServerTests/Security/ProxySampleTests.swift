import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The shipped reverse-proxy samples (`deploy/nginx/richpush.conf`, `deploy/haproxy/haproxy.cfg`)
/// against what the attack run found (issue 28): `/metrics` served to anyone, `/campaigns` not
/// routed to the dashboard's instances, and 1,700 slow request bodies from one address making
/// every other client of nginx fail. Each test runs the shipped file with the test's instances.
@Suite("deploy/ proxy samples under attack", .serialized)
struct ProxySampleTests {
    /// `true` once `front` answers `path` with `status` (up to 30 s).
    static func ready(_ front: HTTPTestClient, path: String = "/healthz", status: Int = 200) async -> Bool {
        for _ in 0..<150 {
            if (try? await front.request("GET", path).status) == status { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return false
    }

    /// `count` connections from `source` that send a receipt's headers and the first bytes of an
    /// 8 KB body, then one byte every 2 s on each (a slow-body attack that keeps nginx's
    /// `client_body_timeout` from ending it), held in a helper process; cancel the task to stop.
    static func slowBodies(_ count: Int, port: Int, source: String, on thread: DedicatedThread) async throws -> (
        sockets: RawSockets, opened: Int, trickle: Task<Void, Never>
    ) {
        let sockets = RawSockets()
        let opened = try await thread.run {
            let n = sockets.open(count, port: port, sources: [source])
            sockets.sendAll(
                "POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 8000\r\n\r\npush_id=slow&r")
            return n
        }
        #expect(opened >= count * 9 / 10, "only \(opened) of \(count) connections opened")
        let trickle = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                _ = try? await thread.run { sockets.sendAll("a") }
            }
        }
        return (sockets, opened, trickle)
    }

    /// Polls (between trickles: the helper answers one call at a time) until at most `open` of
    /// the attack's connections are still open, up to `seconds`; returns how many are.
    static func settle(_ attack: RawSockets, opened: Int, toAtMost open: Int, seconds: Int = 60, on thread: DedicatedThread) async throws -> Int {
        var remaining = opened
        for _ in 0..<(seconds * 5) {
            remaining = opened - (try await thread.run { attack.closedCount() })
            if remaining <= open { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        return remaining
    }

    @Test("nginx: /metrics denied, /campaigns and /pushes/… to the dashboard's instances, /v1/… to the others, /m/ cached")
    func nginxRoutes() async throws {
        let server = try await ServerProcess(extraArguments: ["--trusted-proxy", "127.0.0.1"])
        let dead = try PortReservation()  // the API upstream: refuses connections
        let directory = try Fixtures.temporaryDirectory("nginx-routes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let nginx = try ShippedNginx(
            upstreams: "    server 127.0.0.1:\(dead.port);", dashboardUpstreams: "    server 127.0.0.1:\(server.port);", in: directory, workerConnections: 256)
        defer { if nginx.process.isRunning { kill(nginx.process.process.processIdentifier, SIGTERM) } }
        #expect(nginx.replacedUpstreams == 2)
        let front = HTTPTestClient(port: nginx.port)
        #expect(await Self.ready(front, path: "/login"), "nginx: \(nginx.process.standardError)")
        #expect(try await front.request("GET", "/metrics").status == 403)
        // The dashboard's routes reach the instance (its login page, or a 401 for the API form).
        for path in ["/campaigns", "/campaigns/x", "/pushes/x", "/"] {
            let r = try await front.request("GET", path)
            #expect([200, 303, 401].contains(r.status), "\(path): \(r.status)")
        }
        #expect(try await front.request("GET", "/v1/pushes").status == 502, "/v1/ goes to the API upstream")
        await nginx.process.terminate(grace: 10)
        #expect(await server.terminate() == 0)
        withExtendedLifetime(dead) {}
    }

    @Test("nginx caches /m/: a file fetched once is served again with the instance stopped")
    func nginxCachesMedia() async throws {
        let server = try await ServerProcess(
            extraArguments: ["--trusted-proxy", "127.0.0.1", "--public-url", "http://127.0.0.1", "--media-store-bytes", "10000000", "--media-edge-allow-http"])
        let directory = try Fixtures.temporaryDirectory("nginx-media")
        defer { try? FileManager.default.removeItem(at: directory) }
        let nginx = try ShippedNginx(upstreams: "    server 127.0.0.1:\(server.port);", in: directory, workerConnections: 256)
        defer { if nginx.process.isRunning { kill(nginx.process.process.processIdentifier, SIGTERM) } }
        let front = HTTPTestClient(port: nginx.port)
        #expect(await Self.ready(front), "nginx: \(nginx.process.standardError)")
        // A file in the instance's store (as a push's optimisation stores it).
        let store = try SQLiteStore(path: server.database.path)
        let object = MediaObject(
            bytes: Data([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 7, count: 5000)), fileExtension: "jpg", contentType: "image/jpeg", storedAtMs: 1)
        #expect(try store.storeMedia(object, budgetBytes: 10_000_000) == .stored(evicted: []))
        try store.close()
        let first = try await front.request("GET", object.path)
        let log = { (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? "" }
        #expect(first.status == 200, "nginx's error.log: \(log())")
        #expect(first.headers["x-cache-status"] == "MISS")
        let second = try await front.request("GET", object.path)
        #expect(second.headers["x-cache-status"] == "HIT")
        #expect(await server.terminate() == 0)
        let stopped = try await front.request("GET", object.path)
        #expect(stopped.status == 200, "served from nginx's cache with the instance stopped")
        #expect(stopped.body == object.bytes)
        await nginx.process.terminate(grace: 10)
    }

    @Test("nginx: 1,700 slow request bodies from one address (Debian's 768 worker connections): other clients are answered, the attacker gets 429")
    func nginxSlowBodies() async throws {
        let server = try await ServerProcess(extraArguments: ["--trusted-proxy", "127.0.0.1"])
        let directory = try Fixtures.temporaryDirectory("nginx-slow")
        defer { try? FileManager.default.removeItem(at: directory) }
        let nginx = try ShippedNginx(upstreams: "    server 127.0.0.1:\(server.port);", in: directory, workerConnections: 768)
        defer { if nginx.process.isRunning { kill(nginx.process.process.processIdentifier, SIGTERM) } }
        let front = HTTPTestClient(port: nginx.port, source: "127.0.0.1")
        #expect(await Self.ready(front), "nginx: \(nginx.process.standardError)")
        let thread = DedicatedThread(name: "nginx-slow-bodies")
        let (attack, opened, trickle) = try await Self.slowBodies(1_700, port: nginx.port, source: "127.0.9.1", on: thread)
        defer { trickle.cancel() }
        // nginx keeps at most 64 of that address's connections past their headers (the rest get
        // 429, or are dropped while its 768 connections are full); without limit_conn all stay,
        // trickling, and hold its 768 connections, so no one else is answered.
        let remaining = try await Self.settle(attack, opened: opened, toAtMost: 64, on: thread)
        #expect(remaining <= 64, "\(remaining) slow connections still held by nginx")
        let answers = try await thread.run { (0..<opened).map { attack.received(at: $0) }.filter { !$0.isEmpty } }
        #expect(answers.contains { $0.hasPrefix("HTTP/1.1 429") }, "\(answers.first?.prefix(60) ?? "no answer")")
        // Everyone else is answered while the 64 it holds trickle.
        for i in 0..<5 {
            let health = try await front.request("GET", "/healthz")
            #expect(health.status == 200, "attempt \(i): \(health.status)")
            let receipt = try await front.post("/v1/receipts", form: "push_id=other&receipt_id=r\(i)&outcome=media_attached")
            #expect(receipt.status == 202, "attempt \(i): \(receipt.status)")
        }
        trickle.cancel()
        try await thread.run { attack.closeAll() }
        await nginx.process.terminate(grace: 10)
        #expect(await server.terminate() == 0)
    }

    @Test("HAProxy: /metrics denied, /campaigns and /pushes/… to the dashboard's backend, /v1/… to the other")
    func haproxyRoutes() async throws {
        let server = try await ServerProcess(extraArguments: ["--trusted-proxy", "127.0.0.1"])
        let dead = try PortReservation()  // the API backend: refuses connections
        let directory = try Fixtures.temporaryDirectory("haproxy-routes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let haproxy = try ShippedHAProxy(
            servers: "    server a 127.0.0.1:\(dead.port)", dashboardServers: "    server a 127.0.0.1:\(server.port) check", in: directory)
        defer { if haproxy.process.isRunning { kill(haproxy.process.process.processIdentifier, SIGTERM) } }
        #expect(haproxy.replacedBackends == 2)
        let front = HTTPTestClient(port: haproxy.port)
        #expect(await Self.ready(front, path: "/login"), "haproxy: \(haproxy.process.standardError)")
        #expect(try await front.request("GET", "/metrics").status == 403)
        for path in ["/campaigns", "/campaigns/x", "/pushes/x", "/"] {
            let r = try await front.request("GET", path)
            #expect([200, 303, 401].contains(r.status), "\(path): \(r.status)")
        }
        #expect([502, 503].contains(try await front.request("GET", "/v1/pushes").status), "/v1/ goes to the API backend")
        await haproxy.process.terminate(grace: 10)
        #expect(await server.terminate() == 0)
        withExtendedLifetime(dead) {}
    }

    @Test("HAProxy: 1,700 slow request bodies from one address leave other clients answered (the instances cut the slow bodies)")
    func haproxySlowBodies() async throws {
        let server = try await ServerProcess(extraArguments: ["--trusted-proxy", "127.0.0.1", "--header-timeout", "2"])
        let directory = try Fixtures.temporaryDirectory("haproxy-slow")
        defer { try? FileManager.default.removeItem(at: directory) }
        let haproxy = try ShippedHAProxy(servers: "    server a 127.0.0.1:\(server.port) check", in: directory)
        defer { if haproxy.process.isRunning { kill(haproxy.process.process.processIdentifier, SIGTERM) } }
        let front = HTTPTestClient(port: haproxy.port, source: "127.0.0.1")
        #expect(await Self.ready(front), "haproxy: \(haproxy.process.standardError)")
        let thread = DedicatedThread(name: "haproxy-slow-bodies")
        let (attack, _, trickle) = try await Self.slowBodies(1_700, port: haproxy.port, source: "127.0.9.2", on: thread)
        defer { trickle.cancel() }
        for i in 0..<5 {
            #expect(try await front.request("GET", "/healthz").status == 200, "attempt \(i)")
            let receipt = try await front.post("/v1/receipts", form: "push_id=other&receipt_id=h\(i)&outcome=media_attached")
            #expect(receipt.status == 202, "attempt \(i): \(receipt.status)")
        }
        trickle.cancel()
        try await thread.run { attack.closeAll() }
        await haproxy.process.terminate(grace: 10)
        #expect(await server.terminate() == 0)
    }
}
