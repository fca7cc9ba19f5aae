import Foundation

/// One receiver of webhook events: its URL (operator-configured: private and loopback addresses
/// are allowed), the secret its events are signed with, and the event types it gets.
public struct WebhookEndpoint: Sendable, Equatable {
    /// The `http://` or `https://` URL events are POSTed to (redirects are not followed).
    public var url: String
    /// The signing secret (its UTF-8 bytes are the HMAC-SHA256 key, as Stripe's `whsec_…` are).
    public var secret: Data
    /// The types it gets; `nil` = every type.
    public var types: Set<WebhookEventType>?

    /// Makes an endpoint.
    ///
    /// - Parameters:
    ///   - url: the receiver's URL.
    ///   - secret: the signing secret's bytes.
    ///   - types: the event types it gets, `nil` for all.
    public init(url: String, secret: Data, types: Set<WebhookEventType>? = nil) {
        self.url = url
        self.secret = secret
        self.types = types
    }

    /// The outbox's name for it: `whe_` + the first 16 hex digits of SHA-256 of the URL (the same
    /// on every instance given the same URL; changing the secret or the types keeps it).
    public var key: String {
        "whe_"
            + MediaDigest.sha256(Data(url.utf8)).prefix(8).map { byte in
                let hex = String(byte, radix: 16)
                return hex.count == 1 ? "0" + hex : hex
            }.joined()
    }

    /// The URL as shown on the dashboard and in `/metrics`: scheme, host, port and path, without
    /// user, password or query (which may hold credentials).
    public var displayURL: String { Self.redacted(url) }

    /// A URL as RichPush shows it anywhere (dashboard, `/metrics`, error texts): scheme, host, port
    /// and path of an absolute URL, the path of a relative one (a redirect's `Location`), never
    /// user, password, query or fragment.
    ///
    /// - Parameter url: the URL.
    /// - Returns: the redacted text, `(unparsable URL)` when it cannot be read.
    public static func redacted(_ url: String) -> String {
        guard let c = URLComponents(string: url) else { return "(unparsable URL)" }
        guard let scheme = c.scheme, let host = c.host else { return c.host == nil && c.scheme == nil ? c.path : "(unparsable URL)" }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost)\(c.port.map { ":\($0)" } ?? "")\(c.path)"
    }

    /// Whether it gets events of `type`.
    ///
    /// - Parameter type: the event type.
    /// - Returns: `true` when subscribed.
    public func receives(_ type: WebhookEventType) -> Bool { types?.contains(type) ?? true }

    /// Why `text` cannot be an endpoint URL, or `nil` when it can: an absolute `http` or `https`
    /// URL with a host, no fragment, at most 2,048 bytes.
    ///
    /// - Parameter text: the URL.
    /// - Returns: the problem, or `nil`.
    public static func problem(with text: String) -> String? {
        guard text.utf8.count <= 2_048 else { return "is longer than 2048 bytes" }
        guard let c = URLComponents(string: text), let scheme = c.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return "must be an http:// or https:// URL"
        }
        guard let host = c.host, !host.isEmpty else { return "has no host" }
        guard c.fragment == nil else { return "must not have a #fragment" }
        return nil
    }
}
