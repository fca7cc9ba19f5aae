import Foundation
import RichPushCore
import RichPushServer

/// `richpush serve`: the statistics server (receipts in, figures and dashboard out).
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        summary: "Run the statistics server: receipts in, display rates and a dashboard out.",
        usage:
            "richpush serve [--host 127.0.0.1] [--port 8080] [--db PATH|postgres://… [--db-connections N]] [--synchronous full|normal]\n       [--admin-token TOKEN] [--public-url URL] [--trusted-proxy ADDRESS]… [--device-secret SECRET]\n       [--idempotency-hours H] [--idempotency-lease-minutes M]\n       [--apns-key AuthKey_XXXXXXXXXX.p8 [--apns-key-id KEYID] --apns-team-id TEAMID --apns-topic BUNDLE_ID [--apns-sandbox|--apns-url URL] [--apns-ca-file PEM] [--apns-connections N]]\n       [--fcm-service-account FILE [--fcm-url URL] [--fcm-token-url URL] [--fcm-ca-file PEM]]\n       [--max-connections N] [--max-connections-per-ip N] [--header-timeout S] [--min-body-rate BYTES] [--idle-timeout S]\n       [--threads N] [--commit-linger MS]\n       [--media-store-bytes BYTES [--media-public-url URL] [--media-edge-allow-http]] [--media-allow-host HOST]… [--allow-http-host HOST]… [--media-ca-file PEM]\n       [--media-workers N] [--media-timeout S] [--media-worker-memory BYTES] [--media-cache-bytes BYTES] [--allow-svg]\n       [--new-rows-per-address N] [--new-rows-per-second R]\n       [--webhook-url [TYPES=]URL]… [--webhook-secret SECRET]… [--webhook-timeout S] [--webhook-retry-min S] [--webhook-retry-max S] [--webhook-give-up-hours H]\n       [--campaign-workers N] [--campaign-lease-seconds S] [--campaign-chunk-size N] [--campaign-targets-days D] [--recipients-days D]",
        discussion: """
            Listens for receipts from the notification service extension and serves the figures:
              POST /v1/receipts            open to devices (form or JSON); 202 once committed
              GET  /v1/pushes[/PUSH_ID]    admin (Authorization: Bearer TOKEN), JSON figures;
                                           ?limit=&prefix=&from=&to=&after= for pages
              POST /v1/pushes              admin: lint, check each media URL as the extension will
                                           (optimised copies with the edge; docs/media-at-send.md),
                                           send through APNs or FCM, record sent/accepted
              POST /v1/pushes/ID/sends     admin (Bearer): record sends made by another system
              POST /v1/devices             apps register their token (DELETE /v1/devices/TOKEN)
              GET  /, /pushes/PUSH_ID      admin dashboard (Bearer header or the login form)
              GET  /healthz, /metrics      open; /metrics is Prometheus text
              GET  /m/SHA256.EXT           open: the media edge's optimised files
                                           (--media-store-bytes; see README "Media that shows")

            Security: the admin token is at least 16 bytes (the generated one is 32 random
            bytes). Admin actions signed in by the dashboard's cookie must come from the
            dashboard's own origin (its Host, or --public-url); scripts use the Bearer header.
            Wrong tokens are limited to 10 per address, then one every 6 s (429). Every answer
            carries CSP, X-Frame-Options, nosniff and Referrer-Policy headers. Run it behind a
            TLS-terminating reverse proxy on the internet: pass --public-url https://HOST (the
            cookie becomes Secure) and --trusted-proxy with the proxy's address.

            Slow and many clients: request line + headers must arrive within --header-timeout,
            bodies at --min-body-rate after that grace (else the connection is closed); at most
            --max-connections-per-ip connections per client address and --max-connections in
            all, with 503 server_busy (Retry-After) from 90 % of it. Bodies are read only after
            the headers passed auth: receipts at most 8 KB, POST /v1/pushes 1 MB.

            Prints 'PORT n' first (useful with --port 0), then the URL and, when no token was
            given, a generated admin token (printed once). SIGINT/SIGTERM stop gracefully: no new
            connections, requests in flight finish, everything is committed, exit status 0.

            POST /v1/pushes takes JSON: {"push_id"?, "tokens": [token…] (at most 10,000) and/or
            "user_ids": [id…], "provider"?: "apns" | "fcm", "payload": {…} or
            "title"/"subtitle"/"body"/"image", "push_type"?, "priority"?, "collapse_id"?,
            "expiration"? (UNIX seconds), "topic"?}. Without a push_id the server makes one and
            writes it into the payload so receipts match. It answers 200 {push_id, sent, accepted,
            skipped, results: [{token, provider, status, reason, apns_id | message_id, outcome}]},
            400 with the lint findings, 502 when APNs or FCM refuses the server's credentials, and
            503 when the settings for the provider needed are missing. Tokens a provider calls
            inactive (410, UNREGISTERED) or bad are skipped by later sends until the app
            registers them again with POST /v1/devices.

            POST /v1/devices is open to apps ({"token", "platform", "provider"?, "app_version"?});
            binding a "user_id" needs the admin token (Authorization: Bearer, from your backend)
            or "user_hash" = hex HMAC-SHA256 of the user id under --device-secret.

            The store: a SQLite file (default ./richpush.sqlite; one instance per file), or
            PostgreSQL for several instances behind a load balancer: --db postgres://user@host:5432/db
            (or RICHPUSH_DB_URL; the URL goes to libpq as is, so ?sslmode=require etc. work, and
            PGPASSWORD / ~/.pgpass supply the password). The schema is created on first start
            (safe when several instances start at once). Unreachable at start: exit 1 naming
            host and port; lost while running: receipts get 503 and /healthz answers 503 until
            it is back, and the instance reconnects by itself. See README "Running at scale".

            APNs settings, as for `richpush send` (environment used when the flag is absent):
            RICHPUSH_APNS_KEY, RICHPUSH_APNS_KEY_ID (default: from AuthKey_<KEYID>.p8),
            RICHPUSH_APNS_TEAM_ID, RICHPUSH_APNS_TOPIC, RICHPUSH_APNS_URL, RICHPUSH_APNS_CA_FILE,
            RICHPUSH_APNS_SANDBOX=1. The key's contents are never printed. Some of the four
            (key, key id, team id, topic; the key id comes from an AuthKey_<KEYID>.p8 file name
            when not given) without the others is a usage error (exit 64) naming what is
            missing; none of them leaves POST /v1/pushes to FCM, or answering 503.

            Webhooks (docs/webhooks.md): --webhook-url [TYPES=]URL POSTs events (token.inactive,
            token.bad, push.sent, media.refused, campaign.finished) signed with --webhook-secret
            (header RichPush-Signature: t=UNIX,v1=hex HMAC-SHA256 of "t.body"), written to the
            store's outbox with the change they report, delivered at least once, in order per
            token / push, retried with backoff for --webhook-give-up-hours (default 24).
            RICHPUSH_WEBHOOK_URL and RICHPUSH_WEBHOOK_SECRET stand for the flags.

            FCM settings: RICHPUSH_FCM_SERVICE_ACCOUNT, RICHPUSH_FCM_URL, RICHPUSH_FCM_TOKEN_URL,
            RICHPUSH_FCM_CA_FILE; RICHPUSH_DEVICE_SECRET for --device-secret.

            Example:
              richpush serve --port 8080 --db ./richpush.sqlite
              curl -i -d push_id=2018001 http://127.0.0.1:8080/v1/receipts
              curl -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
                -d '{"tokens":["<hex>"],"title":"Hello","body":"World"}' http://127.0.0.1:8080/v1/pushes
            """,
        options: [
            .value("host", "ADDRESS", help: "IPv4/IPv6 address to bind (default 127.0.0.1; 0.0.0.0 for all)."),
            .value("port", "PORT", help: "TCP port (default 8080; 0 picks a free port)."),
            .value(
                "db", "PATH-or-URL",
                help:
                    "SQLite file (default ./richpush.sqlite), or a PostgreSQL URL\npostgres://user@host:5432/dbname[?sslmode=require] for several\ninstances on one database. Env RICHPUSH_DB_URL."
            ),
            .value(
                "db-connections", "N",
                help:
                    "PostgreSQL connections per instance (2…64, default 4): 2 for\nreads and sends (1 when N is 2), the rest each store one batch of\nreceipts at a time (default 2); a further batch starts only while\none has waited 2 ms for its COMMIT (a slow disk, a far database)."
            ),
            .value(
                "admin-token", "TOKEN",
                help: "Admin token for /v1/pushes and the dashboard, at least 16 bytes\n(default: $RICHPUSH_ADMIN_TOKEN, else a generated one)."),
            .value(
                "public-url", "URL",
                help:
                    "The URL browsers use for the dashboard, e.g. https://stats.example.com\nbehind a reverse proxy: admin actions from that origin are allowed,\nand with https the login cookie is Secure."
            ),
            .value(
                "trusted-proxy", "ADDRESS", repeatable: true,
                help:
                    "A reverse proxy's address (repeatable, or comma-separated): its\nX-Forwarded-For/-Proto/-Host are believed (client address for the\nlogin throttle, TLS for the Secure cookie). Default per-IP cap: off."
            ),
            .value(
                "max-connections", "N",
                help: "Connections open at once (default 10000, lowered to what ulimit -n\nallows); from 90 % of it requests get 503 server_busy."),
            .value(
                "max-connections-per-ip", "N",
                help: "Connections from one client address (default 64; 0 = no limit, e.g.\nbehind a reverse proxy whose address all connections have)."),
            .value(
                "header-timeout", "SECONDS",
                help:
                    "Request line + headers must arrive within SECONDS of the connection\n(or of the previous request when kept alive), else it is closed\n(default 10; 0.5…600)."
            ),
            .value(
                "min-body-rate", "BYTES",
                help: "A body must arrive at BYTES per second after a grace of\n--header-timeout, else the connection is closed (default 1024; 0 = off)."),
            .value("idle-timeout", "SECONDS", help: "Close a connection with no byte in or out for SECONDS (default 30)."),
            .value(
                "synchronous", "full|normal",
                help:
                    "SQLite sync at each commit (default full: a 202 survives\nprocess kill and OS crash; normal: survives process kill).\nPostgreSQL always commits with synchronous_commit=on."
            ),
            .value("threads", "N", help: "HTTP server threads (default: one per core, at least 2)."),
            .value(
                "commit-linger", "MS",
                help:
                    "Wait up to MS milliseconds (0…50) for just-answered clients\nto send again before a group commit, so one commit covers them\n(default 0 = at once; never longer than the last commit)."
            ),
            .value("apns-key", "FILE", help: "APNs auth key AuthKey_XXXXXXXXXX.p8 for POST /v1/pushes. Env RICHPUSH_APNS_KEY."),
            .value("apns-key-id", "KEYID", help: "The key's 10-character id (default: from the file name). Env RICHPUSH_APNS_KEY_ID."),
            .value("apns-team-id", "TEAMID", help: "The 10-character team id. Env RICHPUSH_APNS_TEAM_ID."),
            .value("apns-topic", "BUNDLE_ID", help: "Default apns-topic: the app's bundle id. Env RICHPUSH_APNS_TOPIC."),
            .flag("apns-sandbox", help: "Send to api.sandbox.push.apple.com (apps run from Xcode). Env RICHPUSH_APNS_SANDBOX=1."),
            .value("apns-url", "URL", help: "Another APNs-compatible endpoint (a proxy, a test server). Env RICHPUSH_APNS_URL."),
            .value("apns-ca-file", "PEM", help: "Extra trust roots for --apns-url (a test CA). Env RICHPUSH_APNS_CA_FILE."),
            .value("apns-connections", "N", help: APNsConnectionsOption.help),
            .value("fcm-service-account", "FILE", help: "FCM for POST /v1/pushes: the service-account JSON. Env RICHPUSH_FCM_SERVICE_ACCOUNT."),
            .value("fcm-url", "URL", help: "Another FCM endpoint (a test server). Env RICHPUSH_FCM_URL."),
            .value("fcm-token-url", "URL", help: "Another OAuth2 token endpoint than the file's token_uri. Env RICHPUSH_FCM_TOKEN_URL."),
            .value("fcm-ca-file", "PEM", help: "Extra trust roots for --fcm-url (a test CA). Env RICHPUSH_FCM_CA_FILE."),
            .value(
                "device-secret", "SECRET",
                help:
                    "Key for POST /v1/devices user_hash (HMAC-SHA256 of user_id; at least 16 characters,\ne.g. openssl rand -hex 32). Env RICHPUSH_DEVICE_SECRET."
            ),
            .value(
                "idempotency-hours", "H",
                help: "How long POST /v1/pushes replays its answer for an Idempotency-Key\n(default 24; fractions allowed, up to 720)."),
            .value(
                "idempotency-lease-minutes", "M",
                help:
                    "How long a key whose request died mid-send stays in_progress before a\nretry may send again (default 10; longer than your slowest send)."
            ),
        ] + ServeMediaOptions.options + ServeWebhookOptions.options + ServeBudgetOptions.options + ServeCampaignOptions.options,
        run: run
    )

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        if let extra = args.positionals.first {
            throw UsageError(command: "serve", message: "unexpected argument '\(extra)'")
        }
        // Listening from before the PORT line: a SIGTERM right after it still stops gracefully.
        let termination = TerminationSignal()
        let port = try args.integer("port", in: 0...65535) ?? 8080
        let threads = try args.integer("threads", in: 1...64)
        var synchronous = SQLiteStore.Synchronous.full
        if let raw = args.value("synchronous") {
            guard let parsed = SQLiteStore.Synchronous(raw) else {
                throw UsageError(command: "serve", message: "'--synchronous \(raw)' must be full or normal")
            }
            synchronous = parsed
        }
        var generated = false
        let token: String
        if let given = args.value("admin-token") ?? ProcessInfo.processInfo.environment["RICHPUSH_ADMIN_TOKEN"], !given.isEmpty {
            guard !given.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw UsageError(command: "serve", message: "the admin token must not contain spaces")
            }
            guard given.utf8.count >= AdminAuthenticator.minimumTokenBytes else {
                throw UsageError(
                    command: "serve",
                    message:
                        "the admin token is \(given.utf8.count) bytes; use at least \(AdminAuthenticator.minimumTokenBytes) (e.g. `openssl rand -hex 32`), or leave --admin-token and RICHPUSH_ADMIN_TOKEN unset and serve generates a 32-byte one"
                )
            }
            token = given
        } else {
            token = AdminAuthenticator.generateToken()
            generated = true
        }
        let environment = ProcessInfo.processInfo.environment
        let providers = ProviderSettingsResolution(names: .serve, args: args, env: environment)
        var apns = try providers.serveAPNs()
        let apnsConnections = try APNsConnectionsOption.serveConnections(args, apnsConfigured: apns != nil)
        apns?.connections = apnsConnections
        let apnsMissing = SettingNames.push.apnsRequired
        let fcm = try providers.serveFCM()
        var deviceSecret: Data?
        if let secret = args.value("device-secret") ?? environment["RICHPUSH_DEVICE_SECRET"], !secret.isEmpty {
            guard secret.utf8.count >= 16 else {
                throw UsageError(
                    command: "serve", message: "the device secret is \(secret.utf8.count) characters; give at least 16 (e.g. openssl rand -hex 32)")
            }
            deviceSecret = Data(secret.utf8)
        }
        let security = try securityOptions(args)
        let limits = try connectionLimits(args, trustedProxy: !security.trustedProxies.isEmpty)
        let location = StoreLocation.resolve(option: args.value("db"), environment: ProcessInfo.processInfo.environment)
        let connections = try args.integer("db-connections", in: 2...64)
        if case .postgres = location {
            if args.value("synchronous") != nil {
                throw UsageError(
                    command: "serve",
                    message: "--synchronous applies to a SQLite --db; PostgreSQL commits with synchronous_commit=on (a 202 follows the WAL flush)")
            }
        } else if connections != nil {
            throw UsageError(
                command: "serve", message: "--db-connections applies to a PostgreSQL --db (postgres://…); a SQLite file has one writer and one reader")
        }
        let store = try location.open(synchronous: synchronous, connections: connections ?? PostgresStore.defaultConnections, names: SettingNames.store)

        var configuration = ServerConfiguration(adminToken: token)
        configuration.limits = limits
        configuration.publicURL = security.publicURL
        configuration.trustedProxies = security.trustedProxies
        configuration.host = args.value("host") ?? "127.0.0.1"
        configuration.port = port
        if let threads { configuration.threads = threads }
        configuration.apns = apns
        configuration.apnsMissing = apnsMissing
        configuration.pushSettingNames = SettingNames.push
        configuration.fcm = fcm
        configuration.deviceSecret = deviceSecret
        try ServeIdempotencyOptions.apply(args, to: &configuration)
        try ServeBudgetOptions.apply(args, to: &configuration)
        try ServeCampaignOptions.apply(args, to: &configuration)
        configuration.mediaEdge = try ServeMediaOptions.settings(args, publicURL: security.publicURL)
        configuration.webhooks = try ServeWebhookOptions.settings(args, environment: environment)
        configuration.mediaCheck = try ServeMediaOptions.check(args)
        if let raw = args.value("commit-linger") {
            guard let ms = Double(raw), ms.isFinite, (0...50).contains(ms) else {
                throw UsageError(command: "serve", message: "'--commit-linger \(raw)' must be a number of milliseconds from 0 to 50")
            }
            configuration.commitLinger = ms / 1000
        }
        let server = try StatisticsServer(configuration: configuration, store: store)

        let displayHost = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        var banner = "PORT \(server.port)\n"
        if let postgres = store as? PostgresStore {
            banner +=
                "richpush serve: listening on http://\(displayHost):\(server.port) (store: \(postgres.info.redacted), synchronous_commit=on, \(postgres.connectionCount) connections: \(postgres.concurrentBatches) for receipt batches, \(postgres.connectionCount - postgres.concurrentBatches) for reads and sends)\n"
        } else {
            banner += "richpush serve: listening on http://\(displayHost):\(server.port) (store: \(location.displayName), synchronous=\(synchronous))\n"
        }
        banner += "  receipts:  POST http://\(displayHost):\(server.port)/v1/receipts\n"
        banner += "  dashboard: http://\(displayHost):\(server.port)/\n"
        if let apns {
            let connections = apns.connections > 1 ? ", \(apns.connections) connections" : ""
            banner +=
                "  send:      POST http://\(displayHost):\(server.port)/v1/pushes → APNs \(apns.environment), topic \(apns.topic), key \(apns.keyID)\(connections)\n"
        } else if fcm == nil {
            banner += "  send:      POST /v1/pushes is off (503) until given \(apnsMissing.joined(separator: ", ")), or --fcm-service-account\n"
        }
        if let fcm {
            banner +=
                "  send:      POST http://\(displayHost):\(server.port)/v1/pushes {\"provider\": \"fcm\"} → FCM \(fcm.endpoint), project \(server.fcmProjectID ?? "?")\n"
        }
        banner +=
            "  devices:   POST http://\(displayHost):\(server.port)/v1/devices (user_id needs the admin token\(deviceSecret != nil ? " or a user_hash" : ""))\n"
        if let edge = configuration.mediaEdge {
            banner += ServeMediaOptions.bannerLine(edge, workers: configuration.mediaCheck.workers, svg: configuration.mediaCheck.optimizer.allowsSVG)
        }
        if let webhooks = configuration.webhooks { banner += ServeWebhookOptions.bannerLines(webhooks) }
        let perIP = limits.maximumConnectionsPerIP == 0 ? "no per-address cap" : "\(limits.maximumConnectionsPerIP) per address"
        banner +=
            "  limits:    \(limits.maximumConnections) connections (503 from \(limits.busyThreshold)), \(perIP), headers within \(Self.format(limits.headerTimeoutSeconds)) s, bodies ≥ \(limits.minimumBodyBytesPerSecond) B/s, idle \(limits.idleTimeoutSeconds) s\n"
        if generated {
            banner += "  admin token (generated, shown once; set RICHPUSH_ADMIN_TOKEN to keep one): \(token)\n"
        }
        FileHandle.standardOutput.write(Data(banner.utf8))

        let signalName = await termination.wait()
        FileHandle.standardError.write(Data("richpush serve: \(signalName) received, finishing requests in flight…\n".utf8))
        try await server.shutdown()
        FileHandle.standardError.write(Data("richpush serve: stopped cleanly; every acknowledged receipt is committed.\n".utf8))
        return 0
    }

    /// `--public-url` (an absolute http(s) URL) and `--trusted-proxy` (IP addresses).
    static func securityOptions(_ args: ParsedArguments) throws -> (publicURL: String?, trustedProxies: [String]) {
        var publicURL: String?
        if let raw = args.value("public-url") {
            guard ServerConfiguration.isPublicURL(raw) else {
                throw UsageError(command: "serve", message: "'--public-url \(raw)' must be an http:// or https:// URL such as https://stats.example.com")
            }
            publicURL = raw
        }
        var proxies: [String] = []
        for item in args.values("trusted-proxy").flatMap({ $0.split(separator: ",") }) {
            let address = item.trimmingCharacters(in: .whitespaces)
            guard ServerConfiguration.isIPAddress(address) else {
                throw UsageError(
                    command: "serve", message: "'--trusted-proxy \(address)' must be an IPv4 or IPv6 address (the proxy's address as this server sees it)")
            }
            proxies.append(address)
        }
        return (publicURL, proxies)
    }

    /// The connection limits from the options, within what the file-descriptor limit allows.
    static func connectionLimits(_ args: ParsedArguments, trustedProxy: Bool) throws -> ConnectionLimits {
        var limits = ConnectionLimits()
        let descriptors = FileDescriptorLimit.raise()
        let room = descriptors - ConnectionLimits.reservedDescriptors
        if let n = try args.integer("max-connections", in: 16...1_000_000) {
            guard n <= room else {
                throw UsageError(
                    command: "serve",
                    message:
                        "'--max-connections \(n)' needs \(n + ConnectionLimits.reservedDescriptors) file descriptors, but this process may open \(descriptors) (ulimit -n): raise the limit or give at most \(max(16, room))"
                )
            }
            limits.maximumConnections = n
        } else {
            guard room >= 64 else {
                throw UsageError(
                    command: "serve",
                    message:
                        "this process may open only \(descriptors) files (ulimit -n); richpush serve needs at least \(64 + ConnectionLimits.reservedDescriptors)"
                )
            }
            limits.maximumConnections = min(limits.maximumConnections, room)
        }
        if let n = try args.integer("max-connections-per-ip", in: 0...1_000_000) {
            limits.maximumConnectionsPerIP = n
        } else if trustedProxy {
            // Behind a proxy every connection comes from the proxy's address.
            limits.maximumConnectionsPerIP = 0
        }
        if let seconds = try args.seconds("header-timeout", in: 0.5...600) { limits.headerTimeoutSeconds = seconds }
        if let rate = try args.integer("min-body-rate", in: 0...100_000_000) { limits.minimumBodyBytesPerSecond = rate }
        if let seconds = try args.integer("idle-timeout", in: 1...3_600) { limits.idleTimeoutSeconds = seconds }
        return limits
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && seconds < 1e9 ? String(Int(seconds)) : String(seconds)
    }
}
