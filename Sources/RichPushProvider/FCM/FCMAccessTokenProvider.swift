import Foundation
import RichPushCore

/// Gets and caches the OAuth2 access token FCM HTTP v1 needs: a service-account RS256 JWT
/// exchanged at the token endpoint (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`).
///
/// - Important: Google: the assertion lives at most one hour (`exp − iat ≤ 3600 s`); the access
///   token's `expires_in` (normally 3599 s) says how long it is valid. It is reused until five
///   minutes before that.
public actor FCMAccessTokenProvider {
    /// The OAuth2 scope for sending messages.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// Seconds before expiry at which a token is renewed.
    public static let renewalMargin: TimeInterval = 300

    private let account: FCMServiceAccount
    private let signer: any JWTSigner
    private let transport: any HTTPTransport
    private let clock: any ProviderClock
    private var cached: (token: String, expires: Date)?
    private var inFlight: Task<String, any Error>?
    /// How many tokens were fetched from the endpoint.
    public private(set) var fetches = 0

    /// Makes a provider.
    ///
    /// - Parameters:
    ///   - account: the service account (its `tokenURI` may point at a test server).
    ///   - transport: the HTTP transport.
    ///   - clock: the clock (tests inject one).
    /// - Throws: `RichPushError` with code `invalid_key` when the private key is not RSA.
    public init(account: FCMServiceAccount, transport: any HTTPTransport, clock: any ProviderClock = SystemClock()) throws {
        self.account = account
        self.signer = try RS256Signer(pem: account.privateKeyPEM, label: "the service account's private_key")
        self.transport = transport
        self.clock = clock
    }

    /// The access token to use now (cached until five minutes before it expires). Callers that
    /// ask while a fetch is under way share that fetch (500 concurrent sends: one token request).
    ///
    /// - Returns: the bearer token.
    /// - Throws: `RichPushError` with code `oauth` (the endpoint refused) or `transport`.
    public func accessToken() async throws -> String {
        let now = clock.now
        if let cached, now < cached.expires.addingTimeInterval(-Self.renewalMargin) { return cached.token }
        if let inFlight { return try await inFlight.value }
        let task = Task { try await self.fetch(now: now) }
        inFlight = task
        defer { inFlight = nil }
        return try await task.value
    }

    /// Drops the cached token (after FCM answered 401).
    public func invalidate() { cached = nil }

    /// Drops the cached token if it is still `token` (FCM answered 401 for it); a newer one is kept,
    /// so many concurrent 401s for one stale token cause one fetch.
    /// - Parameter token: the token FCM refused.
    public func invalidate(_ token: String) {
        if cached?.token == token { cached = nil }
    }

    /// What a token endpoint's answer without an access token means, in words that point at the
    /// cause: a server error or throttling is temporary (`transport`), a redirect is not followed,
    /// a 200 without `access_token` is not a token answer, and only a 4xx is a refusal of the
    /// service account (`oauth`).
    static func refusal(_ response: TransportResponse, json: RichPushJSONValue, endpoint: String, account: String) -> RichPushError {
        let detail = json["error_description"]?.stringValue ?? json["error"]?.stringValue
        switch response.status {
        case 500...599, 429:
            return RichPushError(
                code: .transport,
                message:
                    "the OAuth2 endpoint \(endpoint) answered status \(response.status)\(detail.map { " (" + $0 + ")" } ?? ""): a temporary failure of the endpoint, not of the service account; try again later"
            )
        case 300...399:
            let location = response.headers["location"].map { " to " + displayURL($0) } ?? ""
            return RichPushError(
                code: .oauth,
                message:
                    "the OAuth2 endpoint \(endpoint) answered a redirect (status \(response.status)\(location)), which is not followed: set the service account's token_uri to the final URL"
            )
        case 200:
            return RichPushError(
                code: .oauth,
                message:
                    "the OAuth2 endpoint \(endpoint) answered 200 without an access_token (\(json == .null ? "not JSON" : "JSON without access_token")): check the service account's token_uri is Google's token endpoint (https://oauth2.googleapis.com/token)"
            )
        default:
            return RichPushError(
                code: .oauth,
                message:
                    "the OAuth2 endpoint \(endpoint) refused the service account \(account): \(detail ?? "status \(response.status)"); check the key is current and the account has the Firebase Cloud Messaging API Admin role"
            )
        }
    }

    /// A URL as messages show it: without user, password, query or fragment (a token endpoint's
    /// URL can carry credentials; messages reach logs, answers and stored idempotent replies).
    ///
    /// - Parameter url: the URL.
    /// - Returns: `scheme://host[:port]/path`, or the text before any `?` or `#` with no `user@`
    ///   when it does not parse.
    public static func displayURL(_ url: String) -> String {
        if var components = URLComponents(string: url), components.host != nil {
            components.user = nil
            components.password = nil
            components.query = nil
            components.fragment = nil
            if let text = components.string { return text }
        }
        var text = String(url.prefix { $0 != "?" && $0 != "#" })
        if let at = text.lastIndex(of: "@"), let scheme = text.range(of: "://"), scheme.upperBound <= at {
            text.removeSubrange(scheme.upperBound...at)
        }
        return text
    }

    private func fetch(now: Date) async throws -> String {
        let iat = Int(now.timeIntervalSince1970)
        let assertion = try JSONWebToken.make(
            header: ["typ": .string("JWT")],
            claims: [
                "iss": .string(account.clientEmail), "scope": .string(Self.scope), "aud": .string(account.tokenURI),
                "iat": .int(iat), "exp": .int(iat + 3600),
            ],
            signer: signer
        )
        // The assertion is base64url and dots: nothing to escape in a form body.
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        let response: TransportResponse
        do {
            response = try await transport.send(
                TransportRequest(
                    method: "POST", url: account.tokenURI,
                    headers: [("content-type", "application/x-www-form-urlencoded")], body: Data(form.utf8)
                ))
        } catch let error as RichPushError {
            throw RichPushError(
                code: error.code, message: "cannot get an OAuth2 access token from \(Self.displayURL(account.tokenURI)): \(error.message)", underlying: error)
        }
        let json = (try? RichPushJSONValue.parse(response.body)) ?? .null
        guard response.status == 200, let token = json["access_token"]?.stringValue, !token.isEmpty else {
            throw Self.refusal(response, json: json, endpoint: Self.displayURL(account.tokenURI), account: account.clientEmail)
        }
        // Google answers 3599; a value out of 60 s … 24 h is not trusted as is.
        let lifetime = min(max(json["expires_in"]?.intValue ?? 3600, 60), 86_400)
        cached = (token, now.addingTimeInterval(TimeInterval(lifetime)))
        fetches += 1
        return token
    }
}
