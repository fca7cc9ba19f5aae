import Foundation
import RichPushTestSupport
import Testing

/// Cross-site request forgery: a page on another port of the same host, in the admin's signed-in
/// browser, cannot send a push; the dashboard's own origin and Bearer scripts can.
@Suite("cross-site requests", .serialized)
struct CrossSiteRequestTests {
    static let device = MockAPNsProcess.token("cf")

    @Test(
        "headless Chromium: a page on another port posts to /v1/pushes through the admin's session (fetch and form): 403, nothing sent; the dashboard's own origin can"
    )
    func browserAttack() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let run = try await ChildProcess(
            "python3",
            [
                Fixtures.supportDirectory.appendingPathComponent("csrf_browser.py").path,
                "--server", server.origin, "--token", ServerProcess.token, "--device-token", Self.device,
            ]
        ).run(timeout: 120)
        try #require(run.status == 0, "csrf_browser.py failed: \(run.stderr)")
        let line = try #require(run.stdout.split(separator: "\n").last)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])

        // The admin really was signed in in that browser.
        #expect(result["dashboard_status"] as? Int == 200)
        #expect(result["logged_in"] as? Bool == true)
        // Both attacks were refused with 403, and the browser shows why.
        #expect(result["fetch_statuses"] as? [Int] == [403])
        #expect(result["form_status"] as? Int == 403)
        let body = result["form_body"] as? String ?? ""
        #expect(body.contains("cross_origin"), "\(body)")
        #expect(body.contains(result["attacker_origin"] as? String ?? "?"))
        // The control from the dashboard's own origin went through.
        #expect(result["control_status"] as? Int == 200, "\(result["control_body"] ?? "")")

        // APNs saw exactly one push: the control. The attacks left no trace in the store.
        let stats = try await mock.stats()
        #expect(stats["requests"]?.intValue == 1)
        let c = server.client()
        #expect(try await c.request("GET", "/v1/pushes/csrf-fetch", headers: server.admin).status == 404)
        #expect(try await c.request("GET", "/v1/pushes/csrf-form", headers: server.admin).status == 404)
        #expect(try await server.push("same-origin-control")["sent"] as? Int == 1)
        #expect(await server.terminate() == 0)
    }

    @Test(
        "over HTTP: cookie-signed changes need a same-origin Origin (or Sec-Fetch-Site: same-origin) and JSON; Bearer scripts need neither Origin nor a browser"
    )
    func originRules() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let c = server.client()
        let own = ["Origin": server.origin]
        let login = try await c.post("/login", form: "token=\(ServerProcess.token)", headers: own)
        #expect(login.status == 303)
        let cookie = try #require(login.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let body = #"{"push_id":"origin-rules","tokens":["\#(Self.device)"],"title":"t","body":"b"}"#
        let json = ["Content-Type": "application/json"]

        // Another port of the same host, a file page (Origin: null), no Origin at all, a cross-site fetch.
        for headers in [
            ["Origin": "http://127.0.0.1:1"], ["Origin": "null"], [:], ["Sec-Fetch-Site": "same-site"],
            ["Origin": "http://127.0.0.1:\(server.port).evil.example"], ["Origin": "https://127.0.0.1:\(server.port)"],
        ] {
            let r = try await c.request(
                "POST", "/v1/pushes", headers: json.merging(headers) { a, _ in a }.merging(["Cookie": cookie]) { a, _ in a }, body: Data(body.utf8))
            #expect(r.status == 403, "\(headers)")
            #expect(r.text.contains("cross_origin"))
            #expect(r.text.contains("Bearer"))
        }
        // Same origin but text/plain (what a form can send): 415.
        let plain = try await c.request(
            "POST", "/v1/pushes", headers: ["Cookie": cookie, "Origin": server.origin, "Content-Type": "text/plain"], body: Data(body.utf8))
        #expect(plain.status == 415)
        #expect(plain.text.contains("application/json"))
        #expect(try await mock.stats()["requests"]?.intValue == 0)
        // Same origin by Origin, and by Sec-Fetch-Site alone (a browser that left Origin out).
        let viaOrigin = try await c.request(
            "POST", "/v1/pushes", headers: ["Cookie": cookie, "Origin": server.origin, "Content-Type": "application/json"], body: Data(body.utf8))
        #expect(viaOrigin.status == 200, "\(viaOrigin.text)")
        let viaFetchSite = try await c.request(
            "POST", "/v1/pushes", headers: ["Cookie": cookie, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"], body: Data(body.utf8))
        #expect(viaFetchSite.status == 200)
        // Bearer: no Origin needed (scripts), but JSON still.
        #expect(try await c.postJSON("/v1/pushes", body, headers: server.admin).status == 200)
        #expect(
            try await c.request("POST", "/v1/pushes", headers: server.admin.merging(["Content-Type": "text/plain"]) { a, _ in a }, body: Data(body.utf8)).status
                == 415)
        #expect(try await mock.stats()["requests"]?.intValue == 3)

        // Login and logout check the origin too (login CSRF, forced logout).
        let crossLogin = try await c.post("/login", form: "token=\(ServerProcess.token)", headers: ["Origin": "http://127.0.0.1:1"])
        #expect(crossLogin.status == 403)
        #expect(crossLogin.headers["set-cookie"] == nil)
        // The sign-in page shows the message (HTML-escaped).
        func shown(_ page: HTTPTestClient.Response) -> String { page.text.replacingOccurrences(of: "&#39;", with: "'") }
        #expect(shown(crossLogin).contains("the sign-in and sign-out forms must come from this server's own pages"), "\(shown(crossLogin))")
        // A script posting the form without Origin is told to sign in from the dashboard or use Bearer
        // (not about "an admin action signed in by cookie": there is no cookie yet).
        let bare = try await c.post("/login", form: "token=\(ServerProcess.token)", headers: [:])
        #expect(bare.status == 403)
        #expect(shown(bare).contains("the sign-in and sign-out forms must carry the browser's Origin header"), "\(shown(bare))")
        #expect(shown(bare).contains("sign in there; scripts skip the form and send 'Authorization: Bearer TOKEN'"), "\(shown(bare))")
        #expect(try await c.request("POST", "/logout", headers: ["Cookie": cookie, "Origin": "http://127.0.0.1:1"]).status == 403)
        #expect(try await c.request("GET", "/", headers: ["Cookie": cookie]).status == 200)  // still signed in
        #expect(try await c.request("POST", "/logout", headers: ["Cookie": cookie, "Origin": server.origin]).status == 303)
        #expect(try await c.request("GET", "/", headers: ["Cookie": cookie]).status == 401)
        #expect(await server.terminate() == 0)
    }

    @Test("--public-url: the browser's https origin is accepted, and the session cookie is Secure; a trusted proxy's X-Forwarded-Proto does the same")
    func publicURLAndProxy() async throws {
        let server = try await ServerProcess(extraArguments: ["--public-url", "https://stats.example.com"])
        let c = server.client()
        let login = try await c.post("/login", form: "token=\(ServerProcess.token)", headers: ["Origin": "https://stats.example.com"])
        #expect(login.status == 303)
        #expect(login.headers["set-cookie"]?.hasSuffix("; Secure") == true)
        // The plain-http form of the public host is another origin.
        #expect(try await c.post("/login", form: "token=\(ServerProcess.token)", headers: ["Origin": "http://stats.example.com"]).status == 403)
        #expect(await server.terminate() == 0)

        let direct = try await ServerProcess()
        let plain = try await direct.client().post("/login", form: "token=\(ServerProcess.token)", headers: ["Origin": direct.origin])
        #expect(plain.headers["set-cookie"]?.contains("Secure") == false)
        // X-Forwarded-Proto from a peer that is not a trusted proxy is ignored.
        let spoofed = try await direct.client().post(
            "/login", form: "token=\(ServerProcess.token)", headers: ["Origin": "https://127.0.0.1:\(direct.port)", "X-Forwarded-Proto": "https"])
        #expect(spoofed.status == 403)
        #expect(await direct.terminate() == 0)

        let proxied = try await ServerProcess(extraArguments: ["--trusted-proxy", "127.0.0.1"])
        let viaProxy = try await proxied.client().post(
            "/login", form: "token=\(ServerProcess.token)",
            headers: [
                "Origin": "https://stats.example.org", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "stats.example.org", "X-Forwarded-For": "203.0.113.9",
            ])
        #expect(viaProxy.status == 303)
        #expect(viaProxy.headers["set-cookie"]?.hasSuffix("; Secure") == true)
        #expect(await proxied.terminate() == 0)
    }
}
