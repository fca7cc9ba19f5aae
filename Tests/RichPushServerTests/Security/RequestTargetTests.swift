import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Strict request-targets (issue 28, item 4): a control character (`%00`) in the path, bad
/// percent-encoding and a query argument given twice are `400`, before any endpoint runs; a `/`
/// sent as `%2F` stays inside a path parameter, so every push id can be read.
@Suite("request targets: paths and queries read strictly")
struct RequestTargetTests {
    @Test(
        "the parser",
        arguments: [
            ("/v1/devices/abc%00def", "/v1/devices/abc%00def", "invalid_path"), ("/v1/pushes/a%0D%0Ab", "/v1/pushes/a%0D%0Ab", "invalid_path"),
            ("/v1/pushes/%7F", "/v1/pushes/%7F", "invalid_path"), ("/v1/pushes/%zz", "/v1/pushes/%zz", "invalid_path"),
            ("/v1/pushes/%C3%28", "/v1/pushes/%C3%28", "invalid_path"), ("/v1/pushes/a%", "/v1/pushes/a%", "invalid_path"),
            ("/v1/pushes/a%2Fsends", "/v1/pushes/a%2Fsends", nil), ("/v1/pushes/a%2fsends", "/v1/pushes/a%2Fsends", nil),
            ("/v1/%70ushes", "/v1/pushes", nil), ("/v1/pushes/caf%C3%A9", "/v1/pushes/caf%C3%A9", nil),
            ("/v1/pushes?limit=1&limit=2", "/v1/pushes", "invalid_query"),
            ("/v1/pushes?limit=1&q=%zz", "/v1/pushes", "invalid_query"), ("/v1/pushes?limit=1&prefix=a+b", "/v1/pushes", nil),
        ] as [(String, String, String?)])
    func parser(_ raw: String, routing: String, problem: String?) {
        let target = RequestTarget(raw)
        #expect(target.problem?.code == problem, "\(raw): \(target.problem?.message ?? "sound")")
        #expect(target.routingPath == routing, "\(raw)")
    }

    @Test("decoded values: %2F stays in the parameter, + is a space in the query, café decodes")
    func values() {
        let target = RequestTarget("/v1/pushes/a%2Fsends?prefix=a+b%2Bc&limit=5")
        #expect(target.path == "/v1/pushes/a/sends")
        #expect(target.query == ["prefix": "a b+c", "limit": "5"])
        #expect(RequestTarget.parameter("a%2Fsends") == "a/sends")
        #expect(RequestTarget("/v1/pushes/caf%C3%A9").path == "/v1/pushes/café")
        #expect(RequestTarget("/v1/pushes?limit=1&limit=2").problem?.message == "the query gives 'limit' more than once; give each argument once")
        // The reason in words (it once read `Failure(why: "…")`, Swift's debug text).
        #expect(
            RequestTarget("/v1/pushes/%ff").problem?.message
                == "the path is not UTF-8 once decoded; percent-encode it as UTF-8 without control characters")
        #expect(
            RequestTarget("/v1/pushes/%zz").problem?.message
                == "the path has a % that is not followed by two hex digits; percent-encode it as UTF-8 without control characters")
    }

    @Test("a push id with / is read through the JSON API and its page, not taken for /sends")
    func pushIDsWithSlash() async throws {
        let server = try InProcessServer()
        let c = server.client()
        for id in ["a/sends", "x/y/z"] {
            let encoded = id.replacingOccurrences(of: "/", with: "%2F")
            #expect(try await c.post("/v1/receipts", form: "push_id=\(encoded)&receipt_id=r-\(encoded)&outcome=media_attached").status == 202)
            let r = try await c.request("GET", "/v1/pushes/\(encoded)", headers: server.admin)
            #expect(r.status == 200, "\(id): \(r.status) \(r.text)")
            #expect(try r.json()["push_id"] as? String == id)
            let page = try await c.request("GET", "/pushes/\(encoded)", headers: server.admin)
            #expect(page.status == 200, "\(id): \(page.status)")
        }
        // The unencoded form is still the recorded-sends route (POST only).
        #expect(try await c.request("GET", "/v1/pushes/a/sends", headers: server.admin).status == 405)
        try await server.shutdown()
    }

    @Test("over the wire: DELETE /v1/devices/TOKEN%00ff is 400 and the device stays; %0D%0A and a repeated limit are 400; %2F reads the push")
    func overTheWire() async throws {
        let server = try await ServerProcess()
        let c = server.client()
        let token = String(repeating: "ab", count: 32)
        let registered = try await c.postJSON("/v1/devices", #"{"token": "\#(token)", "platform": "ios"}"#)
        #expect(registered.status == 201, "\(registered.text)")
        // libmicrohttpd decodes the path in place: %00 used to cut it to /v1/devices/TOKEN.
        let cut = try await c.request("DELETE", "/v1/devices/\(token)%00ff")
        #expect(cut.status == 400, "\(cut.status) \(cut.text)")
        #expect((try cut.json()["error"] as? [String: Any])?["code"] as? String == "invalid_path")
        let split = try await c.request("GET", "/v1/pushes/a%0D%0ASet-Cookie:x", headers: server.admin)
        #expect(split.status == 400)
        let twice = try await c.request("GET", "/v1/pushes?limit=1&limit=1000", headers: server.admin)
        #expect(twice.status == 400, "\(twice.text)")
        #expect((try twice.json()["error"] as? [String: Any])?["code"] as? String == "invalid_query")
        // Refused before the route is known, yet never cached (schemathesis found the dashboard's
        // 400 without it: openapi.yaml requires Cache-Control on every admin answer).
        #expect(twice.headers["cache-control"] == "no-store", "\(twice.headers)")
        #expect(try await c.post("/v1/receipts", form: "push_id=a%2Fsends&receipt_id=r1&outcome=media_attached").status == 202)
        let read = try await c.request("GET", "/v1/pushes/a%2Fsends", headers: server.admin)
        #expect(read.status == 200, "\(read.text)")
        #expect(try read.json()["push_id"] as? String == "a/sends")
        #expect(await server.terminate() == 0)
        let store = try SQLiteStore(path: server.database.path)
        defer { try? store.close() }
        #expect(try store.device(token) != nil, "the device was deleted by a path cut at %00")
    }

    @Test("a campaign's send_at: a leap second is taken, a leading space or a missing zone is a 400 naming send_at")
    func sendAt() throws {
        let nowMs = 1_800_000_000_000  // 2027-01-15T08:00:00Z
        func parse(_ sendAt: String) throws -> CampaignRequest {
            try CampaignRequest(
                body: try JSONSerialization.data(withJSONObject: ["audience": ["all": true], "title": "t", "send_at": sendAt]), defaultTopic: "com.example.app",
                nowMs: nowMs)
        }
        #expect(try parse("2027-01-15T23:59:60Z").sendAtMs == 1_800_057_600_000)
        for text in [" 2027-01-15T09:00:00Z", "2027-01-15T09:00:00", "2027-01-15T09:00:00+99:00"] {
            #expect(throws: HTTPResponseError.self, "\(text)") { try parse(text) }
            do {
                _ = try parse(text)
            } catch let error as HTTPResponseError {
                #expect(error.field == "send_at", "\(text)")
            }
        }
    }

    @Test(
        "RFC 3339 date-times, exactly",
        arguments: [
            ("2026-12-02T09:00:00Z", 1_796_202_000_000), ("2026-12-02t09:00:00z", 1_796_202_000_000), ("2026-12-02T10:00:00+01:00", 1_796_202_000_000),
            ("2026-12-02T09:00:00.5Z", 1_796_202_000_500), ("2016-12-31T23:59:60Z", 1_483_228_800_000), ("2017-01-01T00:59:60+01:00", 1_483_228_800_000),
            ("2024-02-29T00:00:00Z", 1_709_164_800_000),
        ] as [(String, Int)])
    func rfc3339(_ text: String, ms: Int) {
        #expect(RFC3339Time.milliseconds(text) == ms, "\(text)")
    }

    @Test(
        "not RFC 3339",
        arguments: [
            " 2026-12-02T09:00:00Z", "2026-12-02T09:00:00Z ", "2026-12-02T09:00Z", "2026-12-02 09:00:00Z", "2026-12-02T09:00:00", "2026-12-02T09:00:00+24:00",
            "2026-12-02T09:00:00+01:60", "2026-12-02T09:00:00+0100", "2023-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-12-02T12:00:60Z",
            "2026-12-02T24:00:00Z", "2026-12-02T09:00:00.Z", "2026-12-02T09:00:00.1234567890Z", "+2026-12-02T09:00:00Z", "2026-W49-3T09:00:00Z",
        ])
    func notRFC3339(_ text: String) {
        #expect(RFC3339Time.milliseconds(text) == nil, "\(text)")
    }
}
