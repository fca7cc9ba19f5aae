import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// `Idempotency-Key` on `POST /v1/pushes` (issue 21 item 2), on the built `richpush serve`
/// against `mock_apns.py`, which counts the sends per device token.
@Suite("POST /v1/pushes with an Idempotency-Key", .serialized)
struct IdempotencyTests {
    static let tokens = ["d1", "d2", "d3"].map(MockAPNsProcess.token)

    static func body(title: String = "Sale", tokens: [String] = IdempotencyTests.tokens) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: ["push_id": "idem-1", "tokens": tokens, "title": title]), as: UTF8.self)
    }

    /// Sends `body` with `key` 5 times at once, spread over `servers` (one connection each).
    static func concurrently(_ servers: [ServerProcess], key: String, body: String) async throws -> [HTTPTestClient.Response] {
        try await withThrowingTaskGroup(of: HTTPTestClient.Response.self) { group in
            for i in 0..<5 {
                let server = servers[i % servers.count]
                group.addTask {
                    let client = server.client()
                    return try await client.postJSON("/v1/pushes", body, headers: server.admin.merging(["Idempotency-Key": key]) { $1 })
                }
            }
            var out: [HTTPTestClient.Response] = []
            for try await response in group { out.append(response) }
            return out
        }
    }

    /// Retries until the key's first request has finished (its answer replayed), at most 20 s.
    static func replayed(_ server: ServerProcess, key: String, body: String) async throws -> HTTPTestClient.Response {
        let client = server.client()
        for _ in 0..<200 {
            let r = try await client.postJSON("/v1/pushes", body, headers: server.admin.merging(["Idempotency-Key": key]) { $1 })
            if r.status != 409 { return r }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSupportError("the key stayed in_progress for 20 s")
    }

    /// What every run of the same key must show: one send per token; one fresh 200, the other
    /// answers 409 `in_progress` (with Retry-After) or the same answer replayed.
    static func expectOneSend(_ responses: [HTTPTestClient.Response], mock: MockAPNsProcess, servers: [ServerProcess], key: String, body: String)
        async throws
    {
        let fresh = responses.filter { $0.status == 200 && $0.headers["idempotent-replayed"] == nil }
        #expect(fresh.count == 1, "\(responses.map { "\($0.status) \($0.text)" })")
        for r in responses where !(r.status == 200 && r.headers["idempotent-replayed"] == nil) {
            if r.status == 409 {
                #expect((try r.json()["error"] as? [String: Any])?["code"] as? String == "in_progress")
                #expect(r.headers["retry-after"] == "1")
            } else {
                #expect(r.status == 200)
                #expect(r.headers["idempotent-replayed"] == "true")
                #expect(r.body == fresh.first?.body)
            }
        }
        let first = try #require(fresh.first)
        #expect(try first.json()["sent"] as? Int == 3)
        for server in servers {
            let again = try await replayed(server, key: key, body: body)
            #expect(again.status == 200)
            #expect(again.headers["idempotent-replayed"] == "true")
            #expect(again.body == first.body)
        }
        let perToken = try await mock.stats()["per_token"]
        for token in tokens { #expect(perToken?[token] == .int(1), "\(String(describing: perToken))") }
    }

    @Test("SQLite, one instance: the same key 5 times at once sends once per token; the others get in_progress or the stored answer")
    func sqliteConcurrentRetries() async throws {
        let mock = try await MockAPNsProcess(delayMs: 400)
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let key = "8f14e45f-ceea-467f-a0e6-sqlite000001"
        let body = try Self.body()
        let responses = try await Self.concurrently([server], key: key, body: body)
        try await Self.expectOneSend(responses, mock: mock, servers: [server], key: key, body: body)

        // The same fields in another order and spacing are the same request.
        let reordered = "{ \"title\": \"Sale\",  \"tokens\": [\"\(Self.tokens.joined(separator: "\", \""))\"], \"push_id\": \"idem-1\" }"
        let same = try await Self.replayed(server, key: key, body: reordered)
        #expect(same.status == 200)
        #expect(same.headers["idempotent-replayed"] == "true")

        // The same key with another body: 409, nothing sent.
        let c = server.client()
        let other = try await c.postJSON("/v1/pushes", try Self.body(title: "Other"), headers: server.admin.merging(["Idempotency-Key": key]) { $1 })
        #expect(other.status == 409)
        let error = try #require(try other.json()["error"] as? [String: Any])
        #expect(error["code"] as? String == "idempotency_key_reused")
        #expect(error["field"] as? String == "Idempotency-Key")
        #expect((error["message"] as? String)?.hasSuffix("use a new key for a new push (a UUID per push)") == true, "\(error)")
        #expect(try await mock.stats()["requests"] == .int(3))
        #expect(await server.terminate() == 0)
    }

    @Test("bad keys: 400 naming Idempotency-Key, nothing sent")
    func badKeys() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let c = server.client()
        for key in [String(repeating: "k", count: 256), "clé-1", "tab\tkey"] {
            let r = try await c.postJSON("/v1/pushes", try Self.body(), headers: server.admin.merging(["Idempotency-Key": key]) { $1 })
            #expect(r.status == 400, "\(key): \(r.text)")
            let error = try #require(try r.json()["error"] as? [String: Any])
            #expect(error["field"] as? String == "Idempotency-Key")
            #expect(error["code"] as? String == "invalid_header")
        }
        #expect(try await mock.stats()["requests"] == .int(0))
        // 255 printable bytes are a key.
        let longest = try await c.postJSON(
            "/v1/pushes", try Self.body(), headers: server.admin.merging(["Idempotency-Key": String(repeating: "k", count: 255)]) { $1 })
        #expect(longest.status == 200, "\(longest.text)")
        #expect(await server.terminate() == 0)
    }

    @Test("after the window (--idempotency-hours 0.0005 = 1.8 s) the same key sends again")
    func expiry() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments() + ["--idempotency-hours", "0.0005"])
        let c = server.client()
        let body = try Self.body(tokens: [Self.tokens[0]])
        func sends() async throws -> Int { try await mock.stats()["per_token"]?[Self.tokens[0]]?.intValue ?? 0 }
        // The replay must come inside the window to be one; a loaded machine may take longer than
        // 1.8 s for the two requests, and then the window has rightly passed: that try shows
        // nothing, and it is made again with a new key (the request time bounds the key's age).
        var checked = false
        for attempt in 0..<5 where !checked {
            let headers = server.admin.merging(["Idempotency-Key": "expiring-key-\(attempt)"]) { $1 }
            let before = try await sends()
            let started = ContinuousClock.now
            let first = try await c.postJSON("/v1/pushes", body, headers: headers)
            #expect(first.status == 200)
            let replay = try await c.postJSON("/v1/pushes", body, headers: headers)
            let age = ContinuousClock.now - started
            guard replay.headers["idempotent-replayed"] == "true" else {
                #expect(age >= .milliseconds(1_800), "not replayed \(age) after the first request, inside the 1.8 s window")
                continue
            }
            checked = true
            #expect(try await sends() == before + 1)
            try await Task.sleep(for: .milliseconds(2_500))
            let later = try await c.postJSON("/v1/pushes", body, headers: headers)
            #expect(later.status == 200)
            #expect(later.headers["idempotent-replayed"] == nil)
            #expect(try await sends() == before + 2)
        }
        #expect(checked, "no replay came inside the window in 5 tries")
        #expect(await server.terminate() == 0)
    }

    @Test("PostgreSQL, 2 instances: the same key 5 times at once across both sends once per token")
    func postgresTwoInstances() async throws {
        let mock = try await MockAPNsProcess(delayMs: 400)
        defer { mock.stop() }
        let database = try await PostgresTestCluster.shared().makeDatabase()
        let servers = try await MultiInstanceTests.startInstances(2, url: database.url, extraArguments: mock.serveArguments())
        let key = "8f14e45f-ceea-467f-a0e6-postgres0001"
        let body = try Self.body()
        let responses = try await Self.concurrently(servers, key: key, body: body)
        try await Self.expectOneSend(responses, mock: mock, servers: servers, key: key, body: body)
        #expect(try await database.execute("SELECT state FROM idempotency_keys") == ["done"])
        for server in servers { #expect(await server.terminate() == 0) }
    }
}
