import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// What `scripts/fuzz-api.sh` (schemathesis against openapi.yaml) found wrong in the server, each
/// fixed and kept fixed here.
@Suite("fuzz findings: fixed in the server")
struct FuzzFindingTests {
    @Test("a path parameter that starts with a combining mark still matches its route (routes compare UTF-8 bytes, not Characters)")
    func combiningMarkParameter() {
        // U+11835 (a Dogra vowel sign) and U+0301 fuse with the '/' before them into one Character.
        #expect(RouteTable.Pattern.prefix("/pushes/").parameter(in: "/pushes/\u{11835}") == "\u{11835}")
        #expect(RouteTable.Pattern.prefix("/v1/pushes/").parameter(in: "/v1/pushes/\u{0301}x") == "\u{0301}x")
        #expect(RouteTable.Pattern.enclosed("/v1/pushes/", "/sends").parameter(in: "/v1/pushes/\u{0301}/sends") == "\u{0301}")
        #expect(RouteTable.Pattern.enclosed("/v1/pushes/", "/sends").parameter(in: "/v1/pushes//sends") == nil)
        #expect(RouteTable.Pattern.exact(["/login"]).parameter(in: "/login") == "")
        #expect(RouteTable.Pattern.prefix("/pushes/").parameter(in: "/pushe") == nil)
    }

    @Test("a push whose id starts with a combining mark is recorded, read and shown; an unknown one is the page's 404, not 'no route'")
    func combiningMarkPush() async throws {
        let server = try InProcessServer()
        let client = server.client()
        let id = "%CC%81x"  // U+0301 COMBINING ACUTE ACCENT, then x
        let recorded = try await client.postJSON(
            "/v1/pushes/\(id)/sends", #"{"batch_id": "b1", "sent": 2, "accepted": 1}"#, headers: server.admin)
        #expect(recorded.status == 200, "\(recorded.text)")
        let push = try await client.request("GET", "/v1/pushes/\(id)", headers: server.admin)
        #expect(push.status == 200, "\(push.text)")
        #expect(try push.json()["push_id"] as? String == "\u{0301}x")
        #expect(try push.json()["accepted"] as? Int == 1)
        let page = try await client.request("GET", "/pushes/\(id)", headers: server.admin)
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        let unknown = try await client.request("GET", "/pushes/%F0%91%A0%B5", headers: server.admin)
        #expect(unknown.status == 404)
        #expect(unknown.headers["content-type"] == "text/html; charset=utf-8", "\(unknown.text)")
        #expect(unknown.headers["cache-control"] == "no-store")
    }
}
