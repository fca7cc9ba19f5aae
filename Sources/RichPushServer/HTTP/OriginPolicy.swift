import Foundation

/// Cross-site request forgery protection for the admin's browser session: a state-changing
/// request (`POST /v1/pushes`, `POST /login`, `POST /logout`, any non-GET admin route) that is not
/// authenticated by a Bearer token must come from this server's own pages.
///
/// Browsers send `Origin` on every cross-origin request and on same-origin POSTs; a page on another
/// port of the same host is same-*site* (so `SameSite=Lax` cookies still go along) but not
/// same-*origin*, and its `Origin` names its own port. The request is allowed when its `Origin`
/// is this server's origin — `scheme://Host` as the client addressed it (https when it came over
/// TLS through a trusted proxy), or the `--public-url` — or, without `Origin`, when the browser
/// says `Sec-Fetch-Site: same-origin`. Anything else (another origin, `Origin: null` from a file or
/// sandboxed page, no indication at all) is refused with `403`.
struct OriginPolicy: Sendable {
    /// `--public-url`'s origin (`https://stats.example.com`), normalised; `nil` when not given.
    let publicOrigin: String?

    /// Makes the policy.
    ///
    /// - Parameter publicURL: the `--public-url` value, if any.
    init(publicURL: String?) {
        publicOrigin = publicURL.flatMap(Self.normalizedOrigin)
    }

    /// Why the request must be refused, or `nil` when it comes from this server's own pages.
    ///
    /// - Parameters:
    ///   - origin: the `Origin` header.
    ///   - fetchSite: the `Sec-Fetch-Site` header.
    ///   - client: who sent it (TLS, the addressed host).
    ///   - sessionForm: the request is the sign-in or sign-out form (no session needed yet), not
    ///     an admin action signed in by cookie; only the message differs.
    /// - Returns: the message for the `403`, or `nil`.
    func refusal(origin: String?, fetchSite: String?, client: ClientOrigin, sessionForm: Bool = false) -> String? {
        let own = ownOrigins(client)
        let expected = own.first ?? "this server's origin"
        let what = sessionForm ? "the sign-in and sign-out forms" : "admin actions signed in by cookie"
        let scripts =
            sessionForm
            ? "open the dashboard (\(expected)/) in a browser and sign in there; scripts skip the form and send 'Authorization: Bearer TOKEN'"
            : "scripts authenticate with 'Authorization: Bearer TOKEN' instead of the cookie"
        let advice =
            scripts + "; behind a reverse proxy the server needs its public address (the server's setting: richpush serve --public-url https://YOUR-HOST)"
        if let origin {
            let trimmed = origin.trimmingCharacters(in: .whitespaces)
            if let normalized = Self.normalizedOrigin(trimmed), own.contains(normalized) { return nil }
            return
                "cross-origin request refused: \(what) must come from this server's own pages (\(expected)), this one came from '\(trimmed.prefix(100))'; \(advice)"
        }
        if fetchSite?.trimmingCharacters(in: .whitespaces).lowercased() == "same-origin" { return nil }
        return
            "request refused: \(what) must carry the browser's Origin header (or Sec-Fetch-Site: same-origin) naming this server (\(expected)); \(advice)"
    }

    /// The origins this request may come from: the addressed host (with the request's scheme)
    /// and the public URL.
    func ownOrigins(_ client: ClientOrigin) -> [String] {
        var out: [String] = []
        if let host = client.host, let origin = Self.normalizedOrigin("\(client.overTLS ? "https" : "http")://\(host)") {
            out.append(origin)
        }
        if let publicOrigin, !out.contains(publicOrigin) { out.append(publicOrigin) }
        return out
    }

    /// `HTTPS://Example.COM:443/path` → `https://example.com`; `nil` for anything that is not an
    /// http(s) origin. Default ports are dropped so `Host: example.com:80` matches `http://example.com`.
    static func normalizedOrigin(_ text: String) -> String? {
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("http://") {
            scheme = "http"
        } else if lower.hasPrefix("https://") {
            scheme = "https"
        } else {
            return nil
        }
        var rest = lower.dropFirst(scheme.count + 3)
        if let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        guard !rest.isEmpty, !rest.contains("@") else { return nil }
        var host = String(rest)
        var port: String?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") { port = String(after.dropFirst()) } else if !after.isEmpty { return nil }
            host = String(host[...close])
        } else if let colon = host.lastIndex(of: ":") {
            port = String(host[host.index(after: colon)...])
            host = String(host[..<colon])
        }
        guard !host.isEmpty else { return nil }
        if let p = port {
            guard !p.isEmpty, p.utf8.count <= 5, p.utf8.allSatisfy({ (48...57).contains($0) }), let n = Int(p), n <= 65535 else { return nil }
            if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) { port = nil } else { port = String(n) }
        }
        return "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "")
    }
}
