import Foundation
import RichPushTestSupport
import Testing

/// Runs the built `richpush serve` and talks to it over real sockets.
@Suite("richpush serve endpoints")
struct ServerEndpointTests {
    @Test("form and JSON receipts are answered 202 with no body and show in the push figures")
    func receiptsLand() async throws {
        let server = try InProcessServer()
        let c = server.client()
        let bare = try await c.post("/v1/receipts", form: "push_id=2018001")
        #expect(bare.status == 202)
        #expect(bare.body.isEmpty)
        let full = try await c.post(
            "/v1/receipts",
            form: "push_id=2018001&event=delivered&receipt_id=dev1&outcome=media_attached&elapsed_ms=420&media_bytes=89696&media_type=public.jpeg",
            headers: ["User-Agent": "RichPushExtension/0.1 (iPhone; iOS 17.4)"])
        #expect(full.status == 202)
        let json = try await c.postJSON(
            "/v1/receipts", #"{"push_id":"2018001","receipt_id":"dev2","outcome":"text_only","reason":"timeout","elapsed_ms":25000}"#)
        #expect(json.status == 202)
        #expect(try await c.postJSON("/v1/receipts", #"{"push_id":"2018001","receipt_id":"dev1","event":"opened"}"#).status == 202)

        let push = try await server.push("2018001")
        #expect(push["delivered"] as? Int == 3)
        #expect(push["opened"] as? Int == 1)
        #expect(push["media_bytes"] as? Int == 89_696)
        #expect(push["outcomes"] as? [String: Int] == ["media_attached": 1, "text_only": 1])
        #expect(push["reasons"] as? [String: Int] == ["timeout": 1])
        #expect(push["display_rate"] is NSNull)
        #expect(push["sent"] is NSNull)
        let elapsed = try #require(push["elapsed_ms"] as? [String: Int])
        #expect(elapsed == ["count": 2, "p50": 420, "p95": 25_000])
        #expect(push["first_seen"] is String)

        let list = try await c.request("GET", "/v1/pushes", headers: server.admin)
        #expect(list.status == 200)
        let pushes = try #require(try list.json()["pushes"] as? [[String: Any]])
        #expect(pushes.map { $0["push_id"] as? String } == ["2018001"])
        try await server.shutdown()
    }

    @Test("a bad receipt gets 400 with a JSON error naming the field")
    func badRequestNamesField() async throws {
        let server = try InProcessServer()
        let c = server.client()
        let cases: [(String, String)] = [
            ("event=delivered", "push_id"),
            ("push_id=1&elapsed_ms=soon", "elapsed_ms"),
            ("push_id=1&media_bytes=999999999999", "media_bytes"),
            ("push_id=1&event=clicked", "event"),
            ("push_id=1&receipt_id=\(String(repeating: "x", count: 200))", "receipt_id"),
        ]
        for (body, expected) in cases {
            let r = try await c.post("/v1/receipts", form: body)
            #expect(r.status == 400, "\(body)")
            #expect(r.headers["content-type"] == "application/json")
            let error = try #require(try r.json()["error"] as? [String: String])
            #expect(error["field"] == expected, "\(body)")
            #expect((error["message"] ?? "").contains(expected))
        }
        let notJSON = try await c.postJSON("/v1/receipts", "{nope")
        #expect(notJSON.status == 400)
        #expect((try notJSON.json()["error"] as? [String: String])?["field"] == "body")
        try await server.shutdown()
    }

    @Test("bodies over 8 KB get 413, wrong methods 405 with Allow, unknown paths 404")
    func limitsAndMethods() async throws {
        let server = try await ServerProcess()
        let c = server.client()
        let big = "push_id=1&media_type=" + String(repeating: "a", count: 8_200)
        #expect(try await c.post("/v1/receipts", form: big).status == 413)
        // A declared 100 MB body is refused before it is sent.
        let huge = try await c.raw(Data("POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\npush_id=1".utf8))
        #expect(huge.status == 413)
        let atLimit = "push_id=1&x=" + String(repeating: "a", count: 8_192 - 12)
        #expect(try await c.post("/v1/receipts", form: atLimit).status == 202)
        let get = try await c.request("GET", "/v1/receipts")
        #expect(get.status == 405)
        #expect(get.headers["allow"] == "POST")
        let put = try await c.request("PUT", "/v1/pushes", headers: server.admin)
        #expect(put.status == 405)
        #expect(put.headers["allow"] == "GET, POST")
        #expect(try await c.request("DELETE", "/healthz").status == 405)
        #expect(try await c.request("GET", "/nowhere").status == 404)
        #expect(try await c.request("GET", "/healthz").status == 200)
        #expect(await server.terminate() == 0)
    }

    @Test("admin endpoints need the Bearer token or the login cookie")
    func adminAuth() async throws {
        let server = try InProcessServer()
        let c = server.client()
        #expect(try await c.post("/v1/receipts", form: "push_id=42").status == 202)
        #expect(try await c.request("GET", "/v1/pushes").status == 401)
        #expect(try await c.request("GET", "/v1/pushes", headers: ["Authorization": "Bearer wrong"]).status == 401)
        #expect(try await c.request("GET", "/v1/pushes", headers: ["Authorization": "Bearer \(ServerProcess.token)x"]).status == 401)
        #expect(try await c.request("GET", "/v1/pushes/42").status == 401)
        #expect(try await c.request("GET", "/v1/pushes/42", headers: server.admin).status == 200)
        #expect(try await c.request("GET", "/v1/pushes/43", headers: server.admin).status == 404)

        let page = try await c.request("GET", "/")
        #expect(page.status == 401)
        #expect(page.text.contains("<form"))
        let origin = ["Origin": server.origin]
        #expect(try await c.post("/login", form: "token=wrong", headers: origin).status == 401)
        let login = try await c.post("/login", form: "token=\(ServerProcess.token)", headers: origin)
        #expect(login.status == 303)
        #expect(login.headers["location"] == "/")
        let cookie = try #require(login.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let dashboard = try await c.request("GET", "/", headers: ["Cookie": cookie])
        #expect(dashboard.status == 200)
        #expect(dashboard.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(dashboard.text.contains("<svg"))
        #expect(dashboard.text.contains("Funnel per push"))
        #expect(!dashboard.text.contains("src="))  // no outside assets: inline CSS and SVG only
        #expect(!dashboard.text.contains("<link"))
        #expect(try await c.request("GET", "/", headers: server.admin).status == 200)
        try await server.shutdown()
    }

    @Test("metrics are Prometheus text with accepted, rejected, duplicate counters and a latency histogram")
    func metricsParse() async throws {
        let server = try await ServerProcess()
        let c = server.client()
        for i in 0..<5 { #expect(try await c.post("/v1/receipts", form: "push_id=m&receipt_id=r\(i)").status == 202) }
        #expect(try await c.post("/v1/receipts", form: "push_id=m&receipt_id=r0").status == 202)
        #expect(try await c.post("/v1/receipts", form: "push_id=m&elapsed_ms=x").status == 400)
        let r = try await c.request("GET", "/metrics")
        #expect(r.status == 200)
        #expect(r.headers["content-type"]?.hasPrefix("text/plain") == true)
        var samples: [String: Double] = [:]
        var types: [String: String] = [:]
        for line in r.text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                try #require(parts.count == 4)
                types[String(parts[2])] = String(parts[3])
                continue
            }
            if line.hasPrefix("#") { continue }
            let parts = line.split(separator: " ")
            try #require(parts.count == 2, "sample line: \(line)")
            let value: Double = try #require(Double(String(parts[1])), "value in \(line)")
            samples[String(parts[0])] = value
        }
        #expect(types["richpush_receipts_accepted_total"] == "counter")
        #expect(types["richpush_http_request_duration_seconds"] == "histogram")
        #expect(samples["richpush_receipts_accepted_total"] == 5)
        #expect(samples["richpush_receipts_duplicate_total"] == 1)
        #expect(samples["richpush_receipts_rejected_total{reason=\"bad_request\"}"] == 1)
        let buckets = samples.filter { $0.key.hasPrefix("richpush_http_request_duration_seconds_bucket") }
        #expect(buckets.count >= 10)
        #expect(samples["richpush_http_request_duration_seconds_bucket{le=\"+Inf\"}"] == samples["richpush_http_request_duration_seconds_count"])
        #expect((samples["richpush_http_request_duration_seconds_count"] ?? 0) >= 7)
        #expect(await server.terminate() == 0)
    }

    @Test("richpush stats prints the same figures as a table")
    func statsCommand() async throws {
        let server = try await ServerProcess()
        let c = server.client()
        for i in 0..<3 { _ = try await c.post("/v1/receipts", form: "push_id=2018001&receipt_id=d\(i)&outcome=media_attached&elapsed_ms=\(100 * (i + 1))") }
        _ = try await c.post("/v1/receipts", form: "push_id=2018001&receipt_id=d0&event=opened")
        let url = "http://127.0.0.1:\(server.port)"
        let list = try await ChildProcess(Fixtures.richpushBinary.path, ["stats", "--server", url, "--admin-token", ServerProcess.token]).run()
        #expect(list.status == 0)
        let row = try #require(list.stdout.split(separator: "\n").first { $0.hasPrefix("2018001") })
        let cells = row.split(separator: " ", omittingEmptySubsequences: true)
        #expect(cells[1] == "—")  // source: receipts only
        #expect(cells[4] == "3")  // delivered
        #expect(cells[5] == "1")  // opened
        let one = try await ChildProcess(Fixtures.richpushBinary.path, ["stats", "2018001", "--server", url, "--admin-token", ServerProcess.token]).run()
        #expect(one.status == 0)
        #expect(one.stdout.contains("delivered    3"))
        #expect(one.stdout.contains("p50 200 ms, p95 300 ms"))
        let denied = try await ChildProcess(Fixtures.richpushBinary.path, ["stats", "--server", url, "--admin-token", "nope"]).run()
        #expect(denied.status == 1)
        #expect(denied.stderr.contains("401"))
        #expect(await server.terminate() == 0)
    }

    @Test("serve refuses a malformed postgres:// URL with libpq's reason and without its password")
    func postgresURL() async throws {
        let r = try await ChildProcess(Fixtures.richpushBinary.path, ["serve", "--port", "0", "--db", "postgres://app:s3cret@localhost/richpush?bogus=1"]).run(
            timeout: 30)
        #expect(r.status == 1)
        #expect(r.stderr.contains("'postgres://app:***@localhost/richpush?…' is not a valid PostgreSQL URL (libpq: invalid URI query parameter: \"bogus\")"))
        #expect(!r.stderr.contains("s3cret"))
        #expect(!r.stdout.contains("PORT"))
    }
}
