import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The admin token: exact, compared in constant time, guessed at most 10 times per address before
/// a wait, and never shorter than 16 bytes.
@Suite("admin token", .serialized)
struct AdminTokenTests {
    static let token = "admin-token-0123456789abcdef"

    @Test("the token followed by anything (1, 255, 256, 512 bytes), a prefix, or another case is refused; only the exact token passes")
    func exactComparison() {
        let auth = AdminAuthenticator(token: Self.token)
        #expect(auth.matches(Self.token))
        for extra in [1, 255, 256, 512] {
            #expect(!auth.matches(Self.token + String(repeating: "x", count: extra)), "token + \(extra) bytes")
            #expect(!auth.matches(Self.token + String(repeating: "\0", count: extra)), "token + \(extra) NULs")
        }
        #expect(!auth.matches(String(Self.token.dropLast())))
        #expect(!auth.matches(""))
        #expect(!auth.matches(Self.token.uppercased()))
        #expect(!AdminAuthenticator.constantTimeEqual(Array(Self.token.utf8) + Array(Self.token.utf8), Array(Self.token.utf8)))
        #expect(AdminAuthenticator.generateToken().utf8.count == 64)
        #expect(auth.credential(authorization: "Bearer \(Self.token)" + String(repeating: "A", count: 256), cookie: nil) == .wrongToken)
        #expect(auth.credential(authorization: "Bearer \(Self.token)", cookie: nil) == .bearer)
        #expect(auth.credential(authorization: "Basic abc", cookie: nil) == .none)
    }

    @Test(
        "over HTTP: the token + 256 bytes is 401; ten wrong tokens from one address, then 429 with Retry-After even for the right token; other addresses unaffected"
    )
    func throttle() async throws {
        let server = try InProcessServer()
        let attacker = server.client(from: "127.0.7.1")
        let padded = ["Authorization": "Bearer \(ServerProcess.token)" + String(repeating: "x", count: 256)]
        #expect(try await attacker.request("GET", "/v1/pushes", headers: padded).status == 401)
        for i in 0..<8 {
            #expect(try await attacker.request("GET", "/v1/pushes", headers: ["Authorization": "Bearer guess-\(i)"]).status == 401)
        }
        let origin = ["Origin": server.origin]
        #expect(try await attacker.post("/login", form: "token=guess-login", headers: origin).status == 401)
        // Ten failures: from now on every attempt from this address waits, the right token too.
        let limited = try await attacker.request("GET", "/v1/pushes", headers: server.admin)
        #expect(limited.status == 429)
        let wait = try #require(limited.headers["retry-after"].flatMap { Int($0) })
        #expect((1...6).contains(wait))
        #expect(limited.text.contains("too_many_attempts"))
        let page = try await attacker.post("/login", form: "token=\(ServerProcess.token)", headers: origin)
        #expect(page.status == 429)
        #expect(page.headers["set-cookie"] == nil)
        #expect(page.text.contains("<form"))
        // Receipts and health are not admin routes: unaffected.
        #expect(try await attacker.post("/v1/receipts", form: "push_id=still-open").status == 202)
        // Another address is not affected.
        #expect(try await server.client(from: "127.0.7.2").request("GET", "/v1/pushes", headers: server.admin).status == 200)
        try await server.shutdown()
    }

    @Test("POST /v1/devices takes the admin token as proof for a user_id: wrong tokens there count towards the same limit")
    func throttleOnDevices() async throws {
        let server = try InProcessServer()
        let attacker = server.client(from: "127.0.7.3")
        let token = String(repeating: "ab", count: 32)
        for i in 0..<10 {
            let guess = try await attacker.postJSON(
                "/v1/devices", #"{"token":"\#(token)","platform":"ios","user_id":"victim"}"#, headers: ["Authorization": "Bearer guess-\(i)"])
            #expect(guess.status == 403)
        }
        let limited = try await attacker.postJSON(
            "/v1/devices", #"{"token":"\#(token)","platform":"ios","user_id":"victim"}"#, headers: server.admin)
        #expect(limited.status == 429)
        #expect(try await attacker.request("GET", "/v1/pushes", headers: server.admin).status == 429)
        // Without a token the endpoint stays open to apps, and other addresses are not affected.
        #expect(try await attacker.postJSON("/v1/devices", #"{"token":"\#(token)","platform":"ios"}"#).status == 201)
        let backend = server.client(from: "127.0.7.4")
        #expect(try await backend.postJSON("/v1/devices", #"{"token":"\#(token)","platform":"ios","user_id":"u1"}"#, headers: server.admin).status == 200)
        try await server.shutdown()
    }

    @Test("the throttle refills one attempt per 6 s, counts an IPv6 /64 as one client, and tracks at most 10,000 addresses")
    func throttleKeys() {
        final class Clock: @unchecked Sendable {
            var now = 0.0
        }
        let clock = Clock()
        let throttle = LoginThrottle(burst: 2, refillSeconds: 10, now: { clock.now })
        throttle.recordFailure("2001:db8:1:2::1")
        throttle.recordFailure("2001:db8:1:2:ffff::9")
        #expect(throttle.retryAfter("2001:db8:1:2::77") == 10)
        #expect(throttle.retryAfter("2001:db8:1:3::1") == nil)
        #expect(throttle.retryAfter("::ffff:192.0.2.1") == nil)
        throttle.recordFailure("192.0.2.1")
        throttle.recordFailure("::ffff:192.0.2.1")
        #expect(throttle.retryAfter("192.0.2.1") == 10)
        clock.now = 5
        #expect(throttle.retryAfter("192.0.2.1") == 5)
        clock.now = 10
        #expect(throttle.retryAfter("192.0.2.1") == nil)
        // Memory stays bounded however many addresses fail; the newest are still limited.
        for i in 0..<LoginThrottle.maximumClients + 10 {
            throttle.recordFailure("10.\(i / 65536).\(i / 256 % 256).\(i % 256)")
            throttle.recordFailure("10.\(i / 65536).\(i / 256 % 256).\(i % 256)")
        }
        #expect(throttle.trackedClients <= LoginThrottle.maximumClients)
        #expect(throttle.trackedClients >= LoginThrottle.maximumClients / 2)
        let newest = LoginThrottle.maximumClients + 9
        #expect(throttle.retryAfter("10.\(newest / 65536).\(newest / 256 % 256).\(newest % 256)") == 10)
    }

    @Test("serve refuses an admin token under 16 bytes, saying how to make one; 16 bytes start")
    func shortTokenRefused() async throws {
        for short in ["a", "secret", "fifteen-bytes15"] {
            let run = try await ChildProcess(Fixtures.richpushBinary.path, ["serve", "--port", "0", "--admin-token", short]).run(timeout: 30)
            #expect(run.status == 64, "\(short)")
            #expect(run.stderr.contains("the admin token is \(short.utf8.count) bytes; use at least 16"))
            #expect(run.stderr.contains("openssl rand -hex 32"))
        }
        let env = try await ChildProcess(Fixtures.richpushBinary.path, ["serve", "--port", "0"], environment: ["RICHPUSH_ADMIN_TOKEN": "short"]).run(
            timeout: 30)
        #expect(env.status == 64)
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ok = try await ServerProcess(database: dir.appendingPathComponent("ok.sqlite"), extraArguments: [])
        #expect(try await ok.client().request("GET", "/healthz").status == 200)
        #expect(await ok.terminate() == 0)
    }
}
