import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Checks the admin token from `Authorization: Bearer TOKEN`, and the dashboard's login
/// sessions, both in constant time and exactly (the token followed by anything is wrong).
///
/// The login cookie never holds the token: a successful login starts a session, a random
/// 256-bit id kept in this process's memory with its expiry (12 h by default), and the cookie
/// carries that id. Logout ends the session server-side (a copied cookie stops working), a
/// restart of the server ends all of them, and at most `maximumSessions` live at once (the
/// oldest is dropped first).
public final class AdminAuthenticator: Sendable {
    /// The cookie the login form sets (HttpOnly, SameSite=Lax, Path=/).
    public static let cookieName = "richpush_admin"
    /// How long a dashboard login lasts by default: 12 h, in seconds.
    public static let defaultSessionLifetime: TimeInterval = 12 * 3600
    /// The most sessions kept at once (a bound on memory; each login adds one).
    public static let maximumSessions = 256

    private struct Session {
        var id: [UInt8]
        var expires: Date
    }

    private let token: [UInt8]
    /// Seconds a session lasts.
    public let sessionLifetime: TimeInterval
    private let now: @Sendable () -> Date
    private let sessions = Locked<[Session]>([])

    /// Makes an authenticator.
    ///
    /// - Parameters:
    ///   - token: the admin token.
    ///   - sessionLifetime: seconds a dashboard login lasts (default 12 h).
    ///   - now: the clock (tests pass their own).
    public init(token: String, sessionLifetime: TimeInterval = defaultSessionLifetime, now: @escaping @Sendable () -> Date = { Date() }) {
        self.token = Array(token.utf8)
        self.sessionLifetime = sessionLifetime
        self.now = now
    }

    /// A new random token: 32 random bytes as 64 hex digits (256 bits).
    public static func generateToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The shortest admin token `richpush serve` accepts: 16 bytes (128 bits if random; the
    /// generated ones are 32 random bytes as 64 hex digits).
    public static let minimumTokenBytes = 16

    /// How a request authenticated itself.
    public enum Credential: Sendable, Equatable {
        /// `Authorization: Bearer` with the right token (scripts; no CSRF check needed).
        case bearer
        /// A live dashboard session cookie (a browser; state changes need a same-origin `Origin`).
        case session
        /// `Authorization: Bearer` with a wrong token (counts as a failed attempt).
        case wrongToken
        /// Nothing usable: no `Authorization`, no live session.
        case none
    }

    /// Whether `candidate` equals the token exactly: same length, every byte compared, in time
    /// that depends only on the candidate's length (never on where they differ).
    public func matches(_ candidate: String) -> Bool {
        Self.constantTimeEqual(Array(candidate.utf8), token)
    }

    /// How the request authenticated itself (see `Credential`).
    ///
    /// - Parameters:
    ///   - authorization: the `Authorization` header, if any.
    ///   - cookie: the `Cookie` header, if any.
    /// - Returns: `.bearer`, `.session`, `.wrongToken` or `.none`.
    public func credential(authorization: String?, cookie: String?) -> Credential {
        if let authorization {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return matches(String(parts[1]).trimmingCharacters(in: .whitespaces)) ? .bearer : .wrongToken
            }
        }
        return sessionID(in: cookie).map(isLiveSession) == true ? .session : .none
    }

    /// Whether the request carries the token as a Bearer header or a live session cookie.
    ///
    /// - Parameter request: the request.
    /// - Returns: `true` when either admits the request.
    public func isAuthorized(_ request: ServerRequest) -> Bool {
        isAuthorized(authorization: request.header("Authorization"), cookie: request.header("Cookie"))
    }

    /// Whether an `Authorization` header holds the token (`Bearer TOKEN`) or a `Cookie` header
    /// a live session.
    ///
    /// - Parameters:
    ///   - authorization: the `Authorization` header, if any.
    ///   - cookie: the `Cookie` header, if any.
    /// - Returns: `true` when either admits the request.
    public func isAuthorized(authorization: String?, cookie: String?) -> Bool {
        switch credential(authorization: authorization, cookie: cookie) {
        case .bearer, .session: return true
        case .wrongToken, .none: return false
        }
    }

    /// Starts a session after a correct login.
    ///
    /// - Parameter secure: add `Secure` (the browser then sends the cookie over TLS only): when
    ///   the login came over TLS or the server's `--public-url` is https.
    /// - Returns: the `Set-Cookie` value carrying the new session id (never the token), with
    ///   `Max-Age` = the session lifetime.
    public func startSession(secure: Bool = false) -> String {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        sessions.withLock { sessions in
            let time = now()
            sessions.removeAll { $0.expires <= time }
            if sessions.count >= Self.maximumSessions { sessions.removeFirst(sessions.count - Self.maximumSessions + 1) }
            sessions.append(Session(id: id, expires: time.addingTimeInterval(sessionLifetime)))
        }
        let value = id.map { String(format: "%02x", $0) }.joined()
        return "\(Self.cookieName)=\(value); Path=/; HttpOnly; SameSite=Lax; Max-Age=\(Int(sessionLifetime))" + (secure ? "; Secure" : "")
    }

    /// Ends the session a `Cookie` header names, if any (logout): the id stops working at once.
    ///
    /// - Parameter cookie: the request's `Cookie` header.
    public func endSession(cookie: String?) {
        guard let id = sessionID(in: cookie).flatMap(Self.bytes(hex:)) else { return }
        sessions.withLock { $0.removeAll { Self.constantTimeEqual($0.id, id) } }
    }

    /// The `Set-Cookie` value that logs the browser out.
    public static let logoutCookie = "\(cookieName)=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"

    /// The `Set-Cookie` value that logs the browser out, `Secure` like the session cookie it replaces.
    ///
    /// - Parameter secure: whether the session cookie was `Secure`.
    /// - Returns: the header value.
    public static func logoutCookie(secure: Bool) -> String { logoutCookie + (secure ? "; Secure" : "") }

    // MARK: Private

    /// The value of this server's cookie in a `Cookie` header.
    private func sessionID(in cookie: String?) -> String? {
        guard let cookie else { return nil }
        for pair in cookie.split(separator: ";") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces) == Self.cookieName {
                return String(kv[1]).trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// Whether `hex` is the id of an unexpired session; every live session is compared in
    /// constant time, so the answer's timing says nothing about how close a guess was.
    private func isLiveSession(_ hex: String) -> Bool {
        guard let id = Self.bytes(hex: hex) else { return false }
        return sessions.withLock { sessions in
            let time = now()
            var found = false
            for session in sessions where session.expires > time {
                found = Self.constantTimeEqual(session.id, id) || found
            }
            return found
        }
    }

    /// 64 hex digits → 32 bytes; `nil` for anything else.
    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        var i = 0
        while i < 64 {
            guard let hi = nibble(digits[i]), let lo = nibble(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Exact equality: same length and every byte equal. Every byte of `candidate` is compared
    /// (against `expected` repeated, so no branch depends on where they differ) and the length
    /// check uses the full width of the counts, so the time depends only on `candidate.count`.
    static func constantTimeEqual(_ candidate: [UInt8], _ expected: [UInt8]) -> Bool {
        guard !expected.isEmpty else { return candidate.isEmpty }
        var difference: UInt64 = UInt64(truncatingIfNeeded: candidate.count ^ expected.count)
        let count = expected.count
        for i in 0..<candidate.count {
            difference |= UInt64(candidate[i] ^ expected[i % count])
        }
        return difference == 0
    }
}
