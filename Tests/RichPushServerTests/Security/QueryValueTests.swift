import Foundation
import RichPushTestSupport
import Testing

/// Query values the lists cannot use, sent through the real server (libmicrohttpd decodes the
/// query): a decoded NUL or another control character, and UTC offsets past ±23:59, are a 400
/// naming the parameter on `GET /v1/pushes` and the problem shown on the dashboard (issue 22,
/// item 10).
@Suite("query values")
struct QueryValueTests {
    @Test("prefix=%00 no longer lists every push; control characters and offsets past ±23:59 are refused by name")
    func controlCharactersAndOffsets() async throws {
        let server = try InProcessServer()
        let c = server.client()
        for id in ["alpha-1", "beta-1"] {
            #expect(try await c.post("/v1/receipts", form: "push_id=\(id)&receipt_id=r&outcome=media_attached").status == 202)
        }
        for (query, parameter) in [
            ("prefix=%00", "prefix"), ("q=alpha%00", "q"), ("prefix=a%01b", "prefix"), ("from=2026-11-30%00", "from"), ("to=%7F", "to"),
            ("limit=5%00", "limit"), ("after=%0A", "after"), ("from=2026-11-30T12:00:00%2B99:00", "from"),
            ("to=2026-11-30T12:00:00-24:00", "to"), ("from=2026-11-30T12:00:00%2B05:60", "from"),
            // A C1 control character (U+0084, schemathesis' case against openapi.yaml's pattern).
            ("to=%C2%84", "to"),
        ] {
            let r = try await c.request("GET", "/v1/pushes?\(query)", headers: server.admin)
            #expect(r.status == 400, "\(query)")
            let error = try r.json()["error"] as? [String: Any]
            #expect(error?["code"] as? String == "invalid_query", "\(query)")
            #expect(error?["field"] as? String == parameter, "\(query)")
            let page = try await c.request("GET", "/?\(query)", headers: server.admin)
            // The page is shown with the problem on it, as a 400 (it was a 200, against the document).
            #expect(page.status == 400, "\(query)")
            #expect(page.text.hasPrefix("<!doctype html>"), "\(query)")
            #expect(page.text.contains(parameter == "from" || parameter == "to" ? "\(parameter) " : "\(parameter) contains"), "\(query)")
        }
        // The edges still work: ±23:59 and Z; from equal to to is an empty range, not an error.
        for query in [
            "from=2020-01-01T00:00:00%2B23:59", "from=2020-01-01T00:00:00-23:59", "from=2020-01-01T00:00:00Z", "prefix=alpha",
            "from=2026-11-30T12:00:00Z&to=2026-11-30T12:00:00Z",
        ] {
            let r = try await c.request("GET", "/v1/pushes?\(query)", headers: server.admin)
            #expect(r.status == 200, "\(query)")
        }
        let alpha = try await c.request("GET", "/v1/pushes?prefix=alpha", headers: server.admin)
        #expect((try alpha.json()["pushes"] as? [[String: Any]])?.compactMap { $0["push_id"] as? String } == ["alpha-1"])
        try await server.shutdown()
    }
}
