import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Every answer carries the security headers: receipts' empty 202, errors from the gate and the
/// handlers, pages, JSON, metrics.
@Suite("security headers")
struct SecurityHeadersTests {
    @Test("CSP with frame-ancestors, X-Frame-Options, nosniff and Referrer-Policy on every kind of answer; admin answers are not cached")
    func everyAnswer() async throws {
        let server = try await ServerProcess()
        let c = server.client()
        let origin = ["Origin": server.origin]
        let login = try await c.post("/login", form: "token=\(ServerProcess.token)", headers: origin)
        let cookie = try #require(login.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let answers: [(String, HTTPTestClient.Response)] = [
            ("202 receipt", try await c.post("/v1/receipts", form: "push_id=h")),
            ("400 receipt", try await c.post("/v1/receipts", form: "event=delivered")),
            ("413 declared", try await c.raw(Data("POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Length: 90000\r\n\r\n".utf8))),
            ("501 encoding", try await c.raw(Data("POST /v1/receipts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n".utf8))),
            ("404", try await c.request("GET", "/nowhere")),
            ("405", try await c.request("GET", "/v1/receipts")),
            ("401 JSON", try await c.request("GET", "/v1/pushes")),
            ("401 page", try await c.request("GET", "/")),
            ("403 cross-origin", try await c.request("POST", "/logout", headers: ["Cookie": cookie, "Origin": "http://127.0.0.1:1"])),
            ("303 login", login),
            ("200 login page", try await c.request("GET", "/login")),
            ("200 dashboard", try await c.request("GET", "/", headers: ["Cookie": cookie])),
            ("200 push page", try await c.request("GET", "/pushes/h", headers: server.admin)),
            ("404 push page", try await c.request("GET", "/pushes/none", headers: server.admin)),
            ("200 JSON", try await c.request("GET", "/v1/pushes", headers: server.admin)),
            ("200 healthz", try await c.request("GET", "/healthz")),
            ("200 metrics", try await c.request("GET", "/metrics")),
            ("503 no APNs", try await c.postJSON("/v1/pushes", #"{"tokens":["aa"],"title":"t"}"#, headers: server.admin)),
        ]
        for (name, r) in answers {
            for (header, value) in SecurityHeaders.all {
                #expect(r.headers[header.lowercased()] == value, "\(name): \(header)")
            }
        }
        #expect(SecurityHeaders.contentSecurityPolicy.contains("frame-ancestors 'none'"))
        #expect(SecurityHeaders.contentSecurityPolicy.contains("default-src 'none'"))
        for (name, r) in answers where name.contains("dashboard") || name.contains("push page") || name == "200 JSON" || name == "303 login" {
            #expect(r.headers["cache-control"] == "no-store", "\(name)")
        }
        #expect(await server.terminate() == 0)
    }
}
