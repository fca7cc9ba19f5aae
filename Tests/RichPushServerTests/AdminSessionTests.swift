import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The dashboard login: a session id in the cookie, never the token; 12 h; logout ends it.
@Suite("admin sessions")
struct AdminSessionTests {
    /// A clock the test moves by hand.
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var time = Date(timeIntervalSince1970: 1_700_000_000)
        var now: Date { lock.withLock { time } }
        func advance(_ seconds: TimeInterval) { lock.withLock { time += seconds } }
    }

    static let token = "admin-token-0123456789abcdef"

    /// `name=value` of a Set-Cookie value.
    static func pair(_ setCookie: String) -> String { String(setCookie.split(separator: ";")[0]) }

    @Test("the cookie holds a random session id, not the token, and lasts 12 h")
    func cookieIsNotTheToken() throws {
        let clock = Clock()
        let auth = AdminAuthenticator(token: Self.token, now: { clock.now })
        let first = auth.startSession()
        let second = auth.startSession()
        #expect(!first.contains(Self.token))
        #expect(!first.contains(Self.token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? Self.token))
        #expect(Self.pair(first) != Self.pair(second))
        #expect(first.contains("Max-Age=43200"))
        #expect(first.contains("HttpOnly"))
        let value = try #require(Self.pair(first).split(separator: "=").last)
        #expect(value.count == 64)
        #expect(auth.isAuthorized(authorization: nil, cookie: Self.pair(first)))
        #expect(auth.isAuthorized(authorization: nil, cookie: "theme=dark; \(Self.pair(second))"))
        // The token itself as the cookie (what the old cookie held) no longer logs in.
        #expect(!auth.isAuthorized(authorization: nil, cookie: "\(AdminAuthenticator.cookieName)=\(Self.token)"))
        #expect(!auth.isAuthorized(authorization: nil, cookie: "\(AdminAuthenticator.cookieName)=\(String(repeating: "0", count: 64))"))
        // Bearer works as before.
        #expect(auth.isAuthorized(authorization: "Bearer \(Self.token)", cookie: nil))
        #expect(!auth.isAuthorized(authorization: "Bearer \(Self.token)x", cookie: nil))

        clock.advance(12 * 3600 - 1)
        #expect(auth.isAuthorized(authorization: nil, cookie: Self.pair(first)))
        clock.advance(1)
        #expect(!auth.isAuthorized(authorization: nil, cookie: Self.pair(first)))
    }

    @Test("logout ends the session on the server: the same cookie is refused afterwards")
    func logoutInvalidates() {
        let auth = AdminAuthenticator(token: Self.token)
        let a = Self.pair(auth.startSession())
        let b = Self.pair(auth.startSession())
        auth.endSession(cookie: a)
        #expect(!auth.isAuthorized(authorization: nil, cookie: a))
        #expect(auth.isAuthorized(authorization: nil, cookie: b))
    }

    @Test("at most 256 sessions are kept; the oldest goes first")
    func boundedSessions() {
        let auth = AdminAuthenticator(token: Self.token)
        let oldest = Self.pair(auth.startSession())
        var newest = oldest
        for _ in 0..<AdminAuthenticator.maximumSessions { newest = Self.pair(auth.startSession()) }
        #expect(!auth.isAuthorized(authorization: nil, cookie: oldest))
        #expect(auth.isAuthorized(authorization: nil, cookie: newest))
    }

    @Test("through admission and the login endpoints: login sets a session cookie without the token, logout makes it stop working")
    func overHTTP() async throws {
        let server = try InProcessServer()
        let c = server.client()
        let origin = ["Origin": "http://127.0.0.1"]
        let login = try await c.post("/login", form: "token=\(ServerProcess.token)", headers: origin)
        #expect(login.status == 303)
        let setCookie = try #require(login.headers["set-cookie"])
        #expect(!setCookie.contains(ServerProcess.token))
        #expect(setCookie.contains("Max-Age=43200"))
        let cookie = Self.pair(setCookie)
        #expect(try await c.request("GET", "/", headers: ["Cookie": cookie]).status == 200)
        let logout = try await c.request("POST", "/logout", headers: ["Cookie": cookie, "Origin": "http://127.0.0.1"])
        #expect(logout.status == 303)
        #expect(logout.headers["set-cookie"]?.contains("Max-Age=0") == true)
        #expect(try await c.request("GET", "/", headers: ["Cookie": cookie]).status == 401)
        #expect(try await c.request("GET", "/v1/pushes", headers: ["Cookie": cookie]).status == 401)
        #expect(try await c.request("GET", "/", headers: server.admin).status == 200)
        try await server.shutdown()
    }
}
