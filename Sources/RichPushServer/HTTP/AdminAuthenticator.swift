import Foundation

/// Checks the admin token from `Authorization: Bearer TOKEN` or the dashboard's login cookie,
/// in constant time.
public struct AdminAuthenticator: Sendable {
    /// The cookie the login form sets (HttpOnly, SameSite=Lax, Path=/).
    public static let cookieName = "richpush_admin"
    private let token: [UInt8]

    /// Makes an authenticator.
    ///
    /// - Parameter token: the admin token.
    public init(token: String) {
        self.token = Array(token.utf8)
    }

    /// A new random token: 32 random bytes as 64 hex digits (256 bits).
    public static func generateToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Whether `candidate` equals the token, compared in time independent of where they differ.
    public func matches(_ candidate: String) -> Bool {
        let bytes = Array(candidate.utf8)
        var difference = UInt8(truncatingIfNeeded: bytes.count ^ token.count)
        for i in 0..<token.count {
            difference |= token[i] ^ (i < bytes.count ? bytes[i] : 0)
        }
        return difference == 0
    }

    /// Whether the request carries the token as a Bearer header or in the login cookie.
    public func isAuthorized(_ request: HTTPRequest) -> Bool {
        if let header = request.header("Authorization") {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer", matches(String(parts[1]).trimmingCharacters(in: .whitespaces)) {
                return true
            }
        }
        if let cookies = request.header("Cookie") {
            for pair in cookies.split(separator: ";") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces) == Self.cookieName,
                    let value = String(kv[1]).trimmingCharacters(in: .whitespaces).removingPercentEncoding, matches(value)
                {
                    return true
                }
            }
        }
        return false
    }

    /// The `Set-Cookie` value that logs the browser in.
    public func loginCookie() -> String {
        let value = String(decoding: token, as: UTF8.self).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "\(Self.cookieName)=\(value); Path=/; HttpOnly; SameSite=Lax; Max-Age=2592000"
    }

    /// The `Set-Cookie` value that logs the browser out.
    public static let logoutCookie = "\(cookieName)=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"
}
