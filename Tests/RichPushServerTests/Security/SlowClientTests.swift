import Foundation
import RichPushServer
import RichPushTestSupport
import Testing

/// Slow and many clients against the built `richpush serve`, over real loopback sockets: the
/// server keeps answering honest clients, closes what dawdles, and says 503 before it is full.
@Suite("slow and many clients", .serialized)
struct SlowClientTests {
    /// The time one fresh `GET /healthz` takes.
    private func timedHealth(_ server: ServerProcess, from source: String? = nil) async throws -> (status: Int, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await server.client(from: source).request("GET", "/healthz")
        let elapsed = clock.now - start
        return (response.status, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Polls `GET /healthz` from `source` until it answers 200 (at most `seconds`): the server
    /// frees a closed client's slot once it has seen the close, which takes a loaded machine a
    /// moment.
    /// - Returns: the last status (`nil`: no answer).
    private func healthOnceFreed(_ server: ServerProcess, from source: String? = nil, seconds: Int = 30) async throws -> Int? {
        let end = ContinuousClock.now + .seconds(seconds)
        var status: Int?
        repeat {
            status = try? await server.client(from: source).request("GET", "/healthz").status
            if status != 200 { try await Task.sleep(for: .milliseconds(100)) }
        } while status != 200 && ContinuousClock.now < end
        return status
    }

    /// A Prometheus sample of `/metrics`.
    private func metric(_ server: ServerProcess, _ name: String) async throws -> Double? {
        let text = try await server.client().request("GET", "/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    @Test("2,000 sockets sending one header line at a time: /healthz and receipts answer while they are open, and the header deadline closes every one of them")
    func slowHeaders() async throws {
        // Each socket is a descriptor in the socket helper and one in the server, both of which
        // raise their soft RLIMIT_NOFILE to the hard one: size to that.
        var limit = rlimit()
        _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let descriptors = Int(min(limit.rlim_max, 1 << 20))
        let count = min(2_000, descriptors - 512)
        try #require(count >= 500, "RLIMIT_NOFILE is \(descriptors): too low for this test")
        let server = try await ServerProcess(extraArguments: ["--header-timeout", "6"])
        let port = server.port
        let sockets = RawSockets()
        let thread = DedicatedThread(name: "slow-headers")
        // 40 client addresses × 50 sockets: under the default 64 per address, so the server
        // really has to hold all of them.
        let clock = ContinuousClock()
        let openedAt = clock.now  // no socket is older than this
        let opened = try await thread.run {
            let n = sockets.open(count, port: port, sources: RawSockets.loopbackSources(40, third: 1))
            sockets.sendAll("GET /healthz HTTP/1.1\r\n")
            return n
        }
        #expect(opened == count)
        // The kernel completed every handshake; wait until the server has accepted them all (a
        // loaded machine takes a moment to drain the accept queue).
        let acceptDeadline = clock.now + .seconds(10)
        while try await metric(server, "richpush_http_open_connections") ?? 0 < Double(count) && clock.now < acceptDeadline {
            try await thread.run { sockets.sendAll("X-Waiting: 1\r\n") }
            try await Task.sleep(for: .milliseconds(100))
        }

        // While they dribble a header line every 300 ms, honest clients get through, and the
        // server reports holding every slow socket right after each answer.
        for round in 0..<3 {
            try await thread.run { sockets.sendAll("X-Slow-\(round): 1\r\n") }
            let health = try await timedHealth(server)
            #expect(health.status == 200)
            // A server held up by the slow sockets would answer only once the 6 s header
            // deadline closed them; half of that leaves room for a loaded machine.
            #expect(health.seconds < 3, "GET /healthz took \(health.seconds) s with \(count) slow sockets open")
            let receipt = try await server.client().post("/v1/receipts", form: "push_id=honest-\(round)")
            #expect(receipt.status == 202)
            let open = try await metric(server, "richpush_http_open_connections") ?? 0
            // None may reach its 6 s deadline before 6 s after the first socket opened (a machine
            // loaded by other work may take that long to get here: then the closing is checked below).
            if clock.now - openedAt < .milliseconds(5_500) {
                #expect(open >= Double(count), "round \(round), \(clock.now - openedAt) after the first socket: \(open) of \(count) open")
            }
            try await Task.sleep(for: .milliseconds(300))
        }

        // The 6 s header deadline closes them all, and not before it.
        var firstClose: Duration?
        var closed = 0
        // Watched until 14 s after the first socket opened, and for at least 8 s from here: on a
        // machine loaded by the rest of the suite, opening, accepting and the three rounds above
        // can use up the 14 s, and then no close would be looked at at all.
        let watchUntil = max(openedAt + .seconds(14), clock.now + .seconds(8))
        while clock.now < watchUntil {
            try await thread.run { sockets.sendAll("X-Still-Slow: 1\r\n") }
            closed = try await thread.run { sockets.closedCount() }
            if closed > 0 && firstClose == nil { firstClose = clock.now - openedAt }
            if closed == count { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(closed == count)
        let first = try #require(firstClose)
        #expect(first >= .milliseconds(5_500), "first slow socket closed after \(first)")
        #expect(try await metric(server, "richpush_http_slow_clients_closed_total{phase=\"headers\"}") ?? 0 >= Double(count))
        try await thread.run { sockets.closeAll() }
        #expect(try await server.push("honest-2")["delivered"] as? Int == 1)
        #expect(await server.terminate() == 0)
    }

    @Test("one client address gets at most --max-connections-per-ip connections; other addresses are served")
    func perAddressCap() async throws {
        let server = try await ServerProcess(extraArguments: ["--max-connections-per-ip", "8"])
        let port = server.port
        let sockets = RawSockets()
        let thread = DedicatedThread(name: "per-ip")
        let opened = try await thread.run {
            let n = sockets.open(40, port: port, sources: ["127.0.2.1"])
            sockets.sendAll("GET /healthz HTTP/1.1\r\n")
            return n
        }
        #expect(opened == 40)  // the kernel accepts them; the server closes the extra ones at once
        #expect(try await thread.run { sockets.waitUntilClosed(atLeast: 32) } == 32)
        let other = try await timedHealth(server, from: "127.0.2.2")
        #expect(other.status == 200)
        // Held up behind the capped address, it would wait until those sockets close (never,
        // here, until the test closes them).
        #expect(other.seconds < 10, "GET /healthz from another address took \(other.seconds) s")
        // The capped address itself gets through again once its connections are gone.
        await #expect(throws: (any Error).self) { try await server.client(from: "127.0.2.1").request("GET", "/healthz") }
        try await thread.run { sockets.closeAll() }
        #expect(try await healthOnceFreed(server, from: "127.0.2.1") == 200)
        #expect(await server.terminate() == 0)
    }

    @Test("from 90 % of --max-connections requests get 503 server_busy with Retry-After, before connections are dropped")
    func busyBeforeFull() async throws {
        let server = try await ServerProcess(extraArguments: ["--max-connections", "100"])
        let port = server.port
        let sockets = RawSockets()
        let thread = DedicatedThread(name: "busy")
        let pid = server.child.process.processIdentifier
        let before = ProcessSockets.count(of: pid)
        let opened = try await thread.run { sockets.open(89, port: port, sources: RawSockets.loopbackSources(10, third: 3)) }
        #expect(opened == 89)
        // The kernel completed the handshakes; wait until the server has accepted all 89 (its
        // socket descriptors; a request of ours would be a 90th connection itself).
        let accepted = ContinuousClock.now + .seconds(30)
        while ProcessSockets.count(of: pid) < before + 89, ContinuousClock.now < accepted {
            try await Task.sleep(for: .milliseconds(20))
        }
        // 89 idle + this one = 90 open: the threshold.
        let busy = try await server.client().request("GET", "/healthz")
        #expect(busy.status == 503)
        #expect(busy.headers["retry-after"] == "1")
        #expect(busy.headers["connection"]?.lowercased() == "close")
        #expect(busy.text.contains("server_busy"))
        try await thread.run { sockets.closeAll() }
        #expect(try await healthOnceFreed(server) == 200)
        #expect(await server.terminate() == 0)
    }

    @Test("a body trickled below --min-body-rate is cut off; a slow body above it is received")
    func minimumBodyRate() async throws {
        let server = try await ServerProcess(extraArguments: ["--header-timeout", "1", "--min-body-rate", "100"])
        let port = server.port
        let thread = DedicatedThread(name: "body-rate")
        let slow = RawSockets()
        let steady = RawSockets()
        let body = "push_id=steady&padding=" + String(repeating: "a", count: 277)  // 300 bytes; unknown fields are ignored
        // The clock starts before the headers go, so "not before the 1 s grace" holds however long
        // a loaded machine takes between sending them and the loop below (it once read 0.9 s).
        let clock = ContinuousClock()
        let start = clock.now
        try await thread.run {
            slow.open(1, port: port, sources: ["127.0.4.1"])
            slow.sendAll("POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 2000\r\n\r\npush_id=1")
            steady.open(1, port: port, sources: ["127.0.4.2"])
            steady.sendAll("POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 300\r\n\r\n")
        }
        // 1 s grace, then 100 B/s: the trickler (one byte per 0.25 s) falls behind at ~1.1 s;
        // the steady sender (60 bytes per 0.25 s = 240 B/s) finishes in 1.25 s.
        let bytes = Array(body.utf8)
        var closedAt: Double?
        for step in 0..<40 {
            let chunk = String(decoding: bytes[min(bytes.count, step * 60)..<min(bytes.count, step * 60 + 60)], as: UTF8.self)
            try await thread.run {
                slow.sendAll("x")
                if !chunk.isEmpty { steady.sendAll(chunk) }
            }
            try await Task.sleep(for: .milliseconds(250))
            if closedAt == nil, try await thread.run({ slow.closedCount() }) == 1 {
                let elapsed = clock.now - start
                closedAt = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            }
            if closedAt != nil && step * 60 >= bytes.count { break }
        }
        let cut = try #require(closedAt, "the trickling body was never cut off")
        // Not before the 1 s grace; well before the 30 s idle timeout, the only other thing that
        // would close it (the loop watches for 10 s; a loaded machine stretches its steps).
        #expect(cut >= 1.0 && cut < 8, "cut off after \(cut) s")
        let steadyAnswer = try await thread.run { steady.received(at: 0) }
        #expect(steadyAnswer.hasPrefix("HTTP/1.1 202"), "\(steadyAnswer)")
        #expect(try await server.push("steady")["delivered"] as? Int == 1)
        #expect(try await metric(server, "richpush_http_slow_clients_closed_total{phase=\"body\"}") == 1)
        #expect(await server.terminate() == 0)
    }
}
