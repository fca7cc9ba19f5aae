import Foundation
import RichPushCore

/// Makes and caches the APNs provider token (ES256 JWT), renewing it between 20 and 60 minutes.
///
/// One token is shared by every request on every connection: signing per request is what earns
/// `TooManyProviderTokenUpdates` from APNs in other clients.
///
/// - Important: Apple: "Refresh your token no more than once every 20 minutes and no less than
///   once every 60 minutes"; APNs rejects a token whose `iat` is older than one hour with
///   `ExpiredProviderToken`.
public actor APNsTokenManager {
    /// Apple: the shortest allowed interval between two tokens, in seconds (20 minutes).
    public static let minimumRenewalInterval: TimeInterval = 20 * 60
    /// Apple: the longest a token is accepted, in seconds (60 minutes).
    public static let maximumTokenAge: TimeInterval = 60 * 60

    /// A provider token and when it was issued.
    public struct Token: Sendable, Equatable {
        /// The compact JWT sent as `authorization: bearer …`.
        public let jwt: String
        /// Its `iat`.
        public let issuedAt: Date
    }

    private let signer: any JWTSigner
    private let keyID: String
    private let teamID: String
    private let clock: any ProviderClock
    private let refreshAfter: TimeInterval
    private var current: Token?
    private var lastForcedRenewal: Date?
    /// How many tokens were made (the first one included).
    public private(set) var tokensIssued = 0

    /// Makes a token manager.
    ///
    /// - Parameters:
    ///   - signer: the ES256 key (`ES256Signer`).
    ///   - keyID: the 10-character key id (`kid`), from the key's name `AuthKey_<KEYID>.p8`.
    ///   - teamID: the 10-character team id (`iss`).
    ///   - clock: the clock for `iat` and renewal (tests inject a `ManualClock`).
    ///   - refreshAfter: seconds after which a token is renewed proactively; clamped to
    ///     20…55 minutes, default 50 minutes (Apple: between 20 and 60).
    public init(signer: any JWTSigner, keyID: String, teamID: String, clock: any ProviderClock = SystemClock(), refreshAfter: TimeInterval = 50 * 60) {
        self.signer = signer
        self.keyID = keyID
        self.teamID = teamID
        self.clock = clock
        self.refreshAfter = min(max(refreshAfter, Self.minimumRenewalInterval), 55 * 60)
    }

    /// The token to use now: the cached one, or a new one when it is older than `refreshAfter`.
    ///
    /// - Returns: the token.
    /// - Throws: `RichPushError` with code `signing`.
    public func token() throws -> Token {
        let now = clock.now
        // A renewal within the same second dates its iat one second ahead (see `issue`): such a
        // token is current, not a sign of the clock going back (which would issue a new one on
        // every call until the clock caught up: more token updates than APNs allows).
        if let current, now.timeIntervalSince(current.issuedAt) < refreshAfter, now.timeIntervalSince(current.issuedAt) >= -2 {
            return current
        }
        return try issue(at: now)
    }

    /// Renews after APNs answered `ExpiredProviderToken` for `rejected`.
    ///
    /// Renews once: when another request already renewed, the newer token is returned; when a
    /// forced renewal happened less than 20 minutes ago, renewing again would earn
    /// `TooManyProviderTokenUpdates`, so `nil` is returned and the caller stops.
    /// - Parameter rejected: the JWT APNs rejected.
    /// - Returns: the token to retry with, or `nil` when renewing now is not allowed.
    /// - Throws: `RichPushError` with code `signing`.
    public func renew(afterExpired rejected: String) throws -> Token? {
        if let current, current.jwt != rejected { return current }
        let now = clock.now
        if let lastForcedRenewal, now.timeIntervalSince(lastForcedRenewal) < Self.minimumRenewalInterval {
            return nil
        }
        lastForcedRenewal = now
        return try issue(at: now)
    }

    private func issue(at now: Date) throws -> Token {
        // iat has a resolution of one second: a renewal within the same second must still differ.
        var iat = Int(now.timeIntervalSince1970)
        if let current, iat <= Int(current.issuedAt.timeIntervalSince1970) {
            iat = Int(current.issuedAt.timeIntervalSince1970) + 1
        }
        let jwt = try JSONWebToken.make(
            header: ["kid": .string(keyID)],
            claims: ["iss": .string(teamID), "iat": .int(iat)],
            signer: signer
        )
        let token = Token(jwt: jwt, issuedAt: Date(timeIntervalSince1970: TimeInterval(iat)))
        current = token
        tokensIssued += 1
        return token
    }
}
