import Foundation

/// How `richpush serve` runs.
public struct ServerConfiguration: Sendable {
    /// The address to bind, default `127.0.0.1`.
    public var host: String = "127.0.0.1"
    /// The TCP port, default 8080; 0 picks a free port (printed as `PORT n`).
    public var port: Int = 8080
    /// The admin token for `/v1/pushes`, `/` (dashboard); at least 16 bytes (`serve` refuses shorter).
    public var adminToken: String
    /// Server threads (default: one per core, at least 2).
    public var threads: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)
    /// The largest receipt body, in bytes: 8 KB (8,192; issue 4). Larger bodies get `413`.
    public var maximumBody: Int = 8_192
    /// The most receipts per group-commit transaction.
    public var maximumBatch: Int = 2_000
    /// The longest the group-commit writer waits, in seconds, for the clients it just answered
    /// to send their next receipt before committing (default 0; it also never waits longer
    /// than the last COMMIT took, and stops waiting once they are back; 0 = commit at once).
    public var commitLinger: Double = 0
    /// How long graceful shutdown waits for requests in flight, in seconds.
    public var shutdownGrace: Double = 10
    /// Connection caps, header deadline, minimum body rate, idle timeout.
    public var limits = ConnectionLimits()
    /// The address browsers use to reach the dashboard (`--public-url https://stats.example.com`),
    /// if it differs from the `Host` they send (behind a reverse proxy): admin actions from that
    /// origin are allowed, and with `https` the session cookie is `Secure`.
    public var publicURL: String?
    /// Reverse proxies whose `X-Forwarded-For` / `-Proto` / `-Host` are believed (`--trusted-proxy`).
    public var trustedProxies: [String] = []
    /// APNs for `POST /v1/pushes`; `nil` = that endpoint answers 503 naming `apnsMissing`.
    public var apns: APNsSettings?
    /// The APNs settings that were not given (for the 503), when `apns` is `nil`.
    public var apnsMissing: [String] = PushSettingNames.descriptive.apnsRequired
    /// What `POST /v1/pushes`' 502 and 503 answers call the settings to change (`richpush serve`
    /// passes its options).
    public var pushSettingNames = PushSettingNames.descriptive
    /// FCM for `POST /v1/pushes` with `"provider": "fcm"`; `nil` = FCM sends answer 503.
    public var fcm: FCMSettings?
    /// The secret under which `POST /v1/devices` checks a `user_hash` (HMAC-SHA256 of the user
    /// id); `nil` = only the admin token may bind a token to a user id.
    public var deviceSecret: Data?
    /// How long `POST /v1/pushes` replays the answer for an `Idempotency-Key`, seconds (24 h:
    /// Stripe's and OneSignal's window).
    public var idempotencyWindow: Double = 86_400
    /// How long a claimed `Idempotency-Key` holds without an answer (its instance died mid-send)
    /// before a retry may send again, seconds.
    public var idempotencyLease: Double = 600
    /// The media edge (`--media-store-bytes`): optimised media stored in the store and served at
    /// `GET /m/<sha256>.<ext>`; `nil` = off (no `/m/` route, `POST /v1/pushes` checks media only).
    public var mediaEdge: MediaEdgeSettings?
    /// Signed webhook events to the operator's receivers (`--webhook-url`); `nil` = none written.
    public var webhooks: WebhookSettings?
    /// How `POST /v1/pushes` probes media URLs (`--media-allow-host`, `--allow-http-host`, `--media-ca-file`).
    public var mediaCheck = MediaCheckSettings()
    /// Rows (new push ids, new device tokens) one client address may create at once through
    /// anonymous requests (`CreationBudget`, `docs/limits.md`); 0 = no budget.
    public var newRowsBurst: Int = CreationBudget.defaultBurst
    /// Rows one client address regains per second.
    public var newRowsPerSecond: Double = CreationBudget.defaultPerSecond
    /// Campaign sending (`POST /v1/campaigns`): workers per instance, lease, chunk size.
    public var campaigns = CampaignSettings()
    /// How long a receipt keeps the device it named (per-device receipts) and a conversion its
    /// user and device, days (`--recipients-days`, default 90; 0 = forever): then the references
    /// are removed (`RecipientsRetention`) and the counts stay.
    public var recipientsRetentionDays = 90
    /// This instance's clock, ms since 1970 (the system's). What the campaign workers and the
    /// background services pass as "now"; the PostgreSQL store compares leases, `send_at` and
    /// claims on the database's clock instead, so an instance whose clock is off (tests shift
    /// this one) takes over nothing in flight.
    public var clock: @Sendable () -> Int = { Int(Date().timeIntervalSince1970 * 1000) }

    /// Whether `text` can be a `--public-url`: an http(s) URL with a host (and optional port).
    ///
    /// - Parameter text: the value.
    /// - Returns: `true` when usable.
    public static func isPublicURL(_ text: String) -> Bool {
        OriginPolicy.normalizedOrigin(text) != nil
    }

    /// Whether `text` is an IPv4 or IPv6 address (for `--trusted-proxy`).
    ///
    /// - Parameter text: the value.
    /// - Returns: `true` for an address.
    public static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// Makes a configuration.
    ///
    /// - Parameter adminToken: the admin token.
    public init(adminToken: String) {
        self.adminToken = adminToken
    }
}
