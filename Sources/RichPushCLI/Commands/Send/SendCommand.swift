import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushProvider

/// `richpush send`: sends one notification to one or many device tokens through APNs or FCM.
enum SendCommand {
    static let spec = CommandSpec(
        name: "send",
        summary: "Send a notification through APNs (HTTP/2, token or certificate auth) or FCM HTTP v1, linted first",
        usage: """
            richpush send (--key AuthKey_KEYID.p8 [--key-id KEYID] --team-id TEAMID | --cert FILE [--cert-key FILE] [--cert-password PASS])
                   --topic BUNDLE_ID [--sandbox | --apns-url URL] [--ca-file PEM]
                   (--token HEX... | --tokens FILE) (--payload FILE | --title T [--subtitle S] --body B [--image URL] [--media-key PATH])
                   [--sender-id ID --sender-name NAME [--sender-avatar URL]
                    [--conversation-id ID [--conversation-name NAME] [--conversation-avatar URL] [--group]]]
                   [--push-id ID] [--push-type TYPE] [--priority N] [--expiration SECONDS] [--collapse-id ID] [--apns-id UUID]
                   [--concurrency N] [--apns-connections N] [--max-attempts N] [--dry-run] [--probe [--on-media-error send-text]]
            richpush send --fcm-service-account FILE [--fcm-url URL] [--fcm-token-url URL]
                   (--token FCM_TOKEN... | --tokens FILE) (--payload FILE | --title T --body B [--image URL]) [same options]
            """,
        discussion: """
            The payload is linted first (as `richpush lint`); an error stops the send. Each token
            gets one JSON line on stdout as its result is known: {"token", "apns-id", "status",
            "reason", "outcome", "attempts", "message"} (FCM: "message_id" instead of "apns-id",
            "reason" is FCM's error code). With --tokens, a progress bar and a summary go to
            stderr. --tokens streams the file (or - for stdin): memory stays flat however many
            tokens it holds, so send keeps no list of the tokens it sent and a token on two
            lines is sent twice (sort -u the file first; POST /v1/pushes and campaigns send
            each device once). All requests share one HTTP/2 connection (up to --concurrency streams)
            and one credential (APNs: an ES256 JWT renewed every 50 minutes; FCM: an OAuth2 access
            token), never one per request.

            A message from a person: --sender-id and --sender-name (and --sender-avatar, an https
            image) write the payload's sender {id, name, avatar}, and --conversation-id with
            --conversation-name, --conversation-avatar and --group its conversation, which the
            RichPush extension shows as a communication notification (the sender's avatar and
            name; a group's name and avatar); they set mutable-content: 1 when building, and go
            into a --payload file's top level (replacing its sender and conversation).

            APNs auth: token auth with --key/--key-id/--team-id (the .p8 contents are never
            printed), or certificate auth with --cert (a .p12, or PEM with --cert-key).

            FCM: --fcm-service-account FILE (the service-account JSON from the Firebase console)
            sends the same APNs payload through FCM HTTP v1 as message.apns.payload, its headers as
            apns.headers and its media URL as apns.fcm_options.image, to FCM registration tokens.
            FCM's answers map to the same outcomes: UNREGISTERED → token_inactive,
            INVALID_ARGUMENT (token) / SENDER_ID_MISMATCH → token_bad, QUOTA_EXCEEDED /
            UNAVAILABLE / INTERNAL → retried (Retry-After honoured), THIRD_PARTY_AUTH_ERROR and
            other configuration errors → the batch stops. --fcm-url and --fcm-token-url point at
            another endpoint (a test server); no --topic (FCM knows the app).

            Environment (used when the option is absent): RICHPUSH_APNS_KEY, RICHPUSH_APNS_KEY_ID,
            RICHPUSH_APNS_TEAM_ID, RICHPUSH_APNS_TOPIC, RICHPUSH_APNS_URL, RICHPUSH_APNS_CA_FILE,
            RICHPUSH_APNS_CERT, RICHPUSH_APNS_CERT_PASSWORD, RICHPUSH_APNS_SANDBOX=1,
            RICHPUSH_FCM_SERVICE_ACCOUNT, RICHPUSH_FCM_URL, RICHPUSH_FCM_TOKEN_URL,
            RICHPUSH_PROVIDER (apns or fcm, when settings for both are in the environment). An
            option beats its variable; --sandbox and --apns-url are alternatives (both: usage
            error), and RICHPUSH_APNS_URL beats RICHPUSH_APNS_SANDBOX=1.

            Exactly once on the wire: a request the server did not process (refused, above a
            GOAWAY's last-stream-id, never written) is sent again at once on another connection; a
            request written whose answer was lost (connection reset, no answer in time) may have
            reached APNs, so it ends unknown and is not sent again, unless the notification has a
            --collapse-id (then it is resent: the device shows one). GOAWAYs, resends and lost
            answers are counted on the summary line.

            A host that does not answer (refused, timed out): each token sent gets --max-attempts
            requests; once 5 tokens in a row got no answer no new token is sent — the ones already
            on their way (the first 3 × --concurrency, at least 5) end retries_exhausted, every
            later one gets a not_sent line — and the batch stops (exit 1). So does a batch in
            which no token got any answer, however few tokens it had.

            Exit status: 0 every token accepted; 2 some tokens not accepted (inactive, bad,
            rejected, unknown, or retries exhausted while the provider answered others); 1 the batch
            stopped: a configuration error (bad key, team, topic, service account, TLS), a payload
            error, an unreadable file, or the provider unreachable; 64 usage (also for --dry-run).
            """,
        options: [
            .value("key", "FILE", help: "The APNs auth key AuthKey_XXXXXXXXXX.p8 (token auth). Env RICHPUSH_APNS_KEY."),
            .value("key-id", "KEYID", help: "The key's 10-character id (JWT kid); default: from the file name AuthKey_<KEYID>.p8. Env RICHPUSH_APNS_KEY_ID."),
            .value("team-id", "TEAMID", help: "The 10-character team id (JWT iss). Env RICHPUSH_APNS_TEAM_ID."),
            .value("cert", "FILE", help: "Certificate auth instead: the APNs client certificate (.p12, or PEM). Env RICHPUSH_APNS_CERT."),
            .value("cert-key", "FILE", help: "The private key of a PEM --cert, when not in the same file."),
            .value("cert-password", "PASS", help: "The .p12 / key passphrase (prefer env RICHPUSH_APNS_CERT_PASSWORD)."),
            .value("topic", "BUNDLE_ID", help: "apns-topic: the app's bundle id. Env RICHPUSH_APNS_TOPIC."),
            .flag("sandbox", help: "Send to api.sandbox.push.apple.com (apps run from Xcode). Env RICHPUSH_APNS_SANDBOX=1."),
            .value("apns-url", "URL", help: "Another APNs-compatible endpoint (a proxy, a test server), e.g. https://127.0.0.1:8443. Env RICHPUSH_APNS_URL."),
            .value("ca-file", "PEM", help: "Extra trust roots for --apns-url / --fcm-url (a test CA). Env RICHPUSH_APNS_CA_FILE."),
            .value("fcm-service-account", "FILE", help: "Send through FCM HTTP v1 with this service-account JSON. Env RICHPUSH_FCM_SERVICE_ACCOUNT."),
            .value("fcm-url", "URL", help: "Another FCM endpoint (a test server), default https://fcm.googleapis.com. Env RICHPUSH_FCM_URL."),
            .value("fcm-token-url", "URL", help: "Another OAuth2 token endpoint, default the file's token_uri. Env RICHPUSH_FCM_TOKEN_URL."),
            .value("provider", "apns|fcm", help: "Which provider, when the environment has settings for both. Env RICHPUSH_PROVIDER."),
            .value("token", "TOKEN", repeatable: true, help: "A device token (APNs: hex; FCM: the registration token); repeatable."),
            .value("tokens", "FILE", help: "A file of device tokens, one per line (# comments, blank lines ignored); '-' = stdin. Streamed."),
            .value("payload", "FILE", help: "The payload JSON file (or - for stdin)."),
            .value("title", "TEXT", help: "Build the payload: alert title."),
            .value("subtitle", "TEXT", help: "Build the payload: alert subtitle."),
            .value("body", "TEXT", help: "Build the payload: alert body."),
            .value("image", "URL", help: "Build the payload: media URL (https); sets mutable-content: 1."),
            .value("media-key", "PATH", help: "Where --image goes (default image-url; e.g. aps.alert.image, url, media-url)."),
            .value("push-id", "ID", help: "push_id put in the payload (reported back by the extension's receipt)."),
            .value("sender-id", "ID", help: "A message's sender: the app's id of the person (sender.id)."),
            .value("sender-name", "NAME", help: "The sender's name shown (sender.name)."),
            .value("sender-avatar", "URL", help: "The sender's avatar, an https image (sender.avatar)."),
            .value("conversation-id", "ID", help: "The message's conversation (conversation.id; default: one-to-one with the sender)."),
            .value("conversation-name", "NAME", help: "The conversation's name (a group's, shown as its title)."),
            .value("conversation-avatar", "URL", help: "The group's avatar, an https image."),
            .flag("group", help: "The conversation is a group (conversation.group: true)."),
            .value("push-type", "TYPE", help: "apns-push-type: alert (default), background, voip, …"),
            .value("priority", "N", help: "apns-priority: 10, 5 or 1."),
            .value("expiration", "SECONDS", help: "apns-expiration: keep trying for SECONDS from now (0 = now or never)."),
            .value("collapse-id", "ID", help: "apns-collapse-id (at most 64 bytes, Apple)."),
            .value("apns-id", "UUID", help: "apns-id for the notification (default: APNs makes one per request)."),
            .value("concurrency", "N", help: "Concurrent HTTP/2 streams per connection (default 500; the server's limit applies too)."),
            .value("apns-connections", "N", help: APNsConnectionsOption.help),
            .value("max-attempts", "N", help: "Requests per token at most, for 429/5xx retries (default 4)."),
            .flag("dry-run", help: "Lint and print the payload; send nothing."),
        ] + SendProbe.options,
        run: run
    )

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let env = ProcessInfo.processInfo.environment
        guard args.positionals.isEmpty else {
            throw UsageError(command: "send", message: "unexpected argument '\(args.positionals[0])'")
        }
        let provider = try chooseProvider(args, env: env)
        let settings = ProviderSettingsResolution(names: .send, args: args, env: env)
        // Every option is checked before anything happens, --dry-run included.
        let concurrency = try args.integer("concurrency", in: 1...1000) ?? 500
        let maxAttempts = try args.integer("max-attempts", in: 1...10) ?? 4
        try settings.checkSandboxOrURL()

        // Payload.
        let payloadData = try await buildPayload(args)

        // Notification.
        let topic: String
        if provider == .fcm {
            if args.value("topic") != nil {
                throw UsageError(
                    command: "send", message: "'--topic' is not used with FCM: FCM sends to the app registered in the Firebase project; drop --topic")
            }
            for apnsOnly in ["key", "key-id", "team-id", "cert", "cert-key", "apns-url", "apns-id"] where args.value(apnsOnly) != nil {
                throw UsageError(
                    command: "send", message: "'--\(apnsOnly)' is an APNs setting; with --fcm-service-account the APNs credentials live in the Firebase project"
                )
            }
            if args.flag("sandbox") {
                throw UsageError(command: "send", message: "'--sandbox' is an APNs setting; FCM picks the APNs environment from the app's registration")
            }
            topic = ""
        } else {
            guard let given = settings.topic else {
                throw UsageError(command: "send", message: "'--topic' is required: the app's bundle id (or set RICHPUSH_APNS_TOPIC)")
            }
            topic = given
        }
        var notification = APNsNotification(payload: payloadData, topic: topic)
        if let type = args.value("push-type") {
            guard APNsPushType.documented.map(\.rawValue).contains(type) else {
                throw UsageError(
                    command: "send",
                    message: "'--push-type \(type)' is not an APNs push type; use one of \(APNsPushType.documented.map(\.rawValue).joined(separator: ", "))")
            }
            notification.pushType = APNsPushType(rawValue: type)
        }
        if let priority = try args.integer("priority", in: 1...10) {
            guard [1, 5, 10].contains(priority) else {
                throw UsageError(command: "send", message: "'--priority \(priority)' must be 10, 5 or 1")
            }
            notification.priority = APNsPriority(rawValue: priority)
        }
        if let seconds = try args.integer("expiration", in: 0...(365 * 86_400)) {
            notification.expiration = seconds == 0 ? Date(timeIntervalSince1970: 0) : Date(timeIntervalSinceNow: Double(seconds))
        }
        if let collapseID = args.value("collapse-id") {
            guard collapseID.utf8.count <= APNsNotification.maximumCollapseIDBytes else {
                throw UsageError(
                    command: "send",
                    message: "'--collapse-id' is \(collapseID.utf8.count) bytes; Apple allows at most \(APNsNotification.maximumCollapseIDBytes) bytes")
            }
            notification.collapseID = collapseID
        }
        if let raw = args.value("apns-id") {
            guard let id = UUID(uuidString: raw) else {
                throw UsageError(command: "send", message: "'--apns-id \(raw)' is not a UUID (8-4-4-4-12 hex digits)")
            }
            notification.apnsID = id
        }
        // The lint's checks, with the hosts --allow-http-host names as allowed cleartext (as in lint).
        var linter = RichPushPayloadLinter()
        linter.allowedHTTPHosts = MediaProbeOptions.allowedHTTPHosts(args)
        let findings: [RichPushLintFinding]
        do {
            findings = try notification.validate(linter: linter, checkingTopic: provider == .apns)
        } catch let error as RichPushError where error.code == .payloadRejected {
            // Suggest --fix only when it can help: a fixable error in a payload file.
            let file = args.value("payload").flatMap { $0 == "-" ? nil : $0 }
            var fileLinter = linter
            fileLinter.voip = notification.pushType == .voip
            let fixable = fileLinter.lint(payloadData).contains { $0.severity == .error && $0.fixable }
            guard let file, fixable else { throw error }
            throw RichPushError(code: error.code, message: error.message + "; run `richpush lint --fix --output FIXED.json \(file)`", underlying: error)
        } catch let error as RichPushError where error.setting != nil {
            throw SettingNames.namingNotificationSetting(error)
        }
        for finding in findings { LintCommand.printError("richpush send: " + finding.description(fixableWith: SettingNames.lintFix)) }
        // --probe (issue 19, SendProbe.swift): each media URL fetched as the extension would, before any token.
        if args.flag("probe") || args.value("on-media-error") != nil { notification.payload = try await SendProbe.run(notification.payload, args: args) }
        if args.flag("dry-run") {
            try StandardOutput.write(notification.payload + Data("\n".utf8))
            return 0
        }

        // Tokens: --token values, then the --tokens file streamed.
        let listed = args.values("token")
        let file = args.value("tokens")
        guard !listed.isEmpty || file != nil else {
            throw UsageError(command: "send", message: "give --token TOKEN (repeatable) or --tokens FILE")
        }
        var sources: [any DeviceTokenSource] = [ArrayTokenSource(listed)]
        var expected: Int? = listed.count
        if let file {
            let counted = try await TokenFileSource.countTokens(file)
            if counted == 0, listed.isEmpty {
                throw UsageError(
                    command: "send", message: "the tokens file \(file) has no device tokens (one token per line; blank lines and # comments are ignored)")
            }
            expected = counted.map { $0 + listed.count }
            sources.append(try TokenFileSource(path: file))
        }
        let tokens = ChainedTokenSource(sources)

        // Where and how.
        var transport = TransportConfiguration()
        transport.caFile = settings.caFile
        transport.settingNames = provider == .apns ? settings.names.apnsTransport : settings.names.fcmTransport
        transport.maxConcurrentStreams = concurrency
        transport.connections = try APNsConnectionsOption.connections(args, provider: provider)
        var retry = APNsRetryPolicy()
        retry.maxAttempts = maxAttempts
        try transport.checkCertificateFiles()

        let progress = file != nil ? ProgressBar(total: expected) : nil
        let output = LineWriter()
        var done = 0
        func emit(_ result: any PushTokenResult) {
            output.line { result.writeJSON(into: &$0) }
            // Standard output failed (full disk, closed pipe): the results of further tokens
            // would be lost too, so no new token is sent.
            if output.failure != nil { tokens.stop() }
            done += 1
            progress?.update(done: done)
        }
        let (client, destination): (any PushProviderClient, String)
        switch provider {
        case .apns: (client, destination) = try makeAPNsClient(settings, transport: transport, retry: retry, linter: linter)
        case .fcm: (client, destination) = try makeFCMClient(settings, transport: transport, retry: retry, linter: linter)
        }
        let summary = try await closing(client.close) { try await client.send(notification, to: tokens) { _, result in emit(result) } }
        let connections =
            "\(client.connectionsOpened) connection(s) to \(destination)" + (client.connectionStatistics?.eventsDescription.map { "; \($0)" } ?? "")
        output.flush()
        progress?.finish(done: done)
        if summary.total == 0 {
            throw UsageError(
                command: "send",
                message: "no device tokens \(file == "-" ? "on standard input" : "to send to") (one token per line; blank lines and # comments are ignored)")
        }
        if file != nil || summary.total > 1 {
            LintCommand.printError(
                "richpush send: \(summary.total) tokens, sent \(summary.sent), accepted \(summary.accepted) (\(summary.countsDescription)); \(connections)")
        }
        if let body = summary.unexpectedBody {
            LintCommand.printError(
                "richpush send: an answer was not \(provider.displayName) JSON (a proxy or load balancer in between?), shown once: \(body)")
        }
        if let failure = output.failure {
            // Result lines were lost: that decides the exit status, whatever the batch's outcome.
            throw StandardOutput.error(errno: failure)
        }
        if let stop = summary.stoppedBy {
            throw stop
        }
        return summary.accepted == summary.total ? 0 : 2
    }

    /// Runs `body`, then `close` (the client's), also when `body` throws: the process exits soon
    /// after, and OpenSSL's exit-time cleanup must not meet the transport's thread still running.
    static func closing<T>(_ close: () async -> Void, _ body: () async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body()
        } catch {
            await close()
            throw error
        }
        await close()
        return result
    }

    /// APNs or FCM, from the flags given, else the environment (`RICHPUSH_PROVIDER` decides
    /// when it holds settings for both).
    static func chooseProvider(_ args: ParsedArguments, env: [String: String]) throws -> PushProvider {
        let explicit = try args.value("provider").map { raw -> PushProvider in
            guard let p = PushProvider(caseInsensitive: raw) else {
                throw UsageError(command: "send", message: "'--provider \(raw)' must be apns or fcm")
            }
            return p
        }
        let fcmFlag = args.value("fcm-service-account") != nil
        let apnsFlag = args.value("key") != nil || args.value("cert") != nil
        if fcmFlag, apnsFlag {
            throw UsageError(command: "send", message: "give either APNs credentials (--key or --cert) or --fcm-service-account, not both")
        }
        if let explicit {
            if explicit == .apns, fcmFlag { throw UsageError(command: "send", message: "'--provider apns' with --fcm-service-account: drop one") }
            if explicit == .fcm, apnsFlag { throw UsageError(command: "send", message: "'--provider fcm' with APNs credentials: drop one") }
            return explicit
        }
        if fcmFlag { return .fcm }
        if apnsFlag { return .apns }
        func has(_ name: String) -> Bool { !(env[name] ?? "").isEmpty }
        let fcmEnv = has("RICHPUSH_FCM_SERVICE_ACCOUNT")
        let apnsEnv = has("RICHPUSH_APNS_KEY") || has("RICHPUSH_APNS_CERT")
        if let raw = env["RICHPUSH_PROVIDER"], !raw.isEmpty {
            guard let p = PushProvider(caseInsensitive: raw) else {
                throw UsageError(command: "send", message: "RICHPUSH_PROVIDER=\(raw) must be apns or fcm")
            }
            return p
        }
        if fcmEnv, apnsEnv {
            throw UsageError(
                command: "send",
                message:
                    "the environment has APNs (RICHPUSH_APNS_KEY / _CERT) and FCM (RICHPUSH_FCM_SERVICE_ACCOUNT) settings: choose with --provider apns|fcm or RICHPUSH_PROVIDER"
            )
        }
        return fcmEnv ? .fcm : .apns
    }

    /// The APNs client from --key/--cert and the rest, and where it sends.
    static func makeAPNsClient(
        _ settings: ProviderSettingsResolution, transport: TransportConfiguration, retry: APNsRetryPolicy,
        linter: RichPushPayloadLinter = RichPushPayloadLinter()
    ) throws -> (APNsClient, String) {
        let args = settings.args, env = settings.env
        let environment = try settings.environment()
        if args.value("cert", orEnvironment: "RICHPUSH_APNS_CERT", env) == nil, args.value("cert-key") != nil {
            throw UsageError(command: "send", message: "'--cert-key' goes with '--cert FILE' (a PEM client certificate whose key is in another file)")
        }
        if args.value("cert", orEnvironment: "RICHPUSH_APNS_CERT", env) != nil, settings.keyFile != nil, args.value("key") != nil {
            throw UsageError(command: "send", message: "give either '--key' (token auth) or '--cert' (certificate auth), not both")
        }
        let authentication: APNsAuthentication
        var clientCertificate: TransportConfiguration.ClientCertificate?
        if let cert = args.value("cert", orEnvironment: "RICHPUSH_APNS_CERT", env) {
            let certificate = TransportConfiguration.ClientCertificate(
                certificateFile: cert, keyFile: args.value("cert-key"),
                passphrase: args.value("cert-password", orEnvironment: "RICHPUSH_APNS_CERT_PASSWORD", env))
            clientCertificate = certificate
            authentication = .certificate(certificate)
        } else {
            guard let keyPath = settings.keyFile else {
                throw UsageError(
                    command: "send",
                    message:
                        "give '--key AuthKey_KEYID.p8' and '--team-id TEAMID' (add --key-id when the file is not named AuthKey_<KEYID>.p8), or --cert for certificate auth, or --fcm-service-account to send through FCM"
                )
            }
            // The file first: a missing key is the first thing to fix, whatever its name.
            let keyData = try FileProblem.read(keyPath, what: "the APNs key", option: args.value("key") != nil ? "--key" : "RICHPUSH_APNS_KEY")
            let keyName = URL(fileURLWithPath: keyPath).lastPathComponent
            guard let keyID = settings.keyID else {
                throw UsageError(
                    command: "send",
                    message:
                        "'--key-id KEYID' is needed: the key file \(keyName) is not named AuthKey_<KEYID>.p8 (the key id is the 10 characters Apple shows next to the key)"
                )
            }
            _ = try settings.checkedKeyID(keyID)
            guard let teamID = settings.teamID else {
                throw UsageError(
                    command: "send", message: "'--team-id' is required (Membership details in the developer account), or set RICHPUSH_APNS_TEAM_ID")
            }
            _ = try settings.checkedTeamID(teamID)
            let signer = try ES256Signer(pem: String(decoding: keyData, as: UTF8.self), label: keyName)
            authentication = .token(APNsTokenManager(signer: signer, keyID: keyID, teamID: teamID))
        }
        // Certificate files are checked before any request: a wrong file is one clear error, not
        // a TLS failure per token.
        var checked = transport
        checked.clientCertificate = clientCertificate
        try checked.checkCertificateFiles()
        let client = try APNsClient(
            environment: environment, authentication: authentication, transport: transport, retry: retry, linter: linter,
            settingNames: settings.names.apns)
        return (client, environment.description)
    }

    /// The FCM client from --fcm-service-account and the endpoint overrides, and where it sends.
    static func makeFCMClient(
        _ settings: ProviderSettingsResolution, transport: TransportConfiguration, retry: APNsRetryPolicy,
        linter: RichPushPayloadLinter = RichPushPayloadLinter()
    ) throws -> (FCMClient, String) {
        guard let path = settings.fcmServiceAccount else {
            throw UsageError(
                command: "send",
                message:
                    "'--fcm-service-account FILE' is required to send through FCM (the service-account JSON from Firebase console → Project settings → Service accounts)"
            )
        }
        var account = try FCMServiceAccount(
            contentsOf: path, option: settings.args.value("fcm-service-account") != nil ? "--fcm-service-account" : "RICHPUSH_FCM_SERVICE_ACCOUNT")
        let endpoint = try settings.fcmEndpoint()
        if let tokenURL = try settings.fcmTokenURL() {
            account.tokenURI = tokenURL
        } else {
            _ = try settings.checkedURL(account.tokenURI, option: settings.names.fcmTokenURL, example: "a local test server")
        }
        let client = try FCMClient(
            account: account, endpoint: endpoint, transport: transport, retry: retry, linter: linter, settingNames: settings.names.fcm)
        return (client, "FCM \(endpoint), project \(account.projectID)")
    }

    static func buildPayload(_ args: ParsedArguments) async throws -> Data {
        let built = ["title", "subtitle", "body", "image", "media-key"].contains { args.value($0) != nil }
        if let file = args.value("payload") {
            if built {
                throw UsageError(command: "send", message: "give either --payload FILE or --title/--body/--image, not both")
            }
            var data = try await InputFile.read(file, option: "--payload")
            let message = try message(args)
            if args.value("push-id") != nil || message != nil {
                var json = try RichPushJSONValue.parseStrictly(data)
                if let pushID = args.value("push-id") { json = json.setting(.string(pushID), at: "push_id") }
                if let message {
                    json = json.setting(message.senderJSON, at: "sender")
                    if case .object(var root) = json {
                        root["conversation"] = message.conversationJSON
                        json = .object(root)
                    }
                }
                data = json.jsonData(sortedKeys: true)
            }
            return data
        }
        guard built else {
            throw UsageError(command: "send", message: "give --payload FILE, or --title/--body (and --image URL) to build one")
        }
        var payload = RichPushPayloadBuilder(title: args.value("title"), subtitle: args.value("subtitle"), body: args.value("body"))
        if let key = args.value("media-key") { payload.mediaKeyPath = RichPushPayloadKeyPath(key) }
        payload.mediaURL = args.value("image")
        payload.pushID = args.value("push-id")
        payload.message = try message(args)
        return payload.jsonData()
    }

    /// The message the sender and conversation options describe, `nil` when none is given.
    /// - Parameter args: the command line.
    /// - Returns: the message.
    /// - Throws: `UsageError` naming what is missing or wrong (`RichPushMessage`'s rules).
    static func message(_ args: ParsedArguments) throws -> RichPushMessage? {
        let options = ["sender-id", "sender-name", "sender-avatar", "conversation-id", "conversation-name", "conversation-avatar"]
        guard options.contains(where: { args.value($0) != nil }) || args.flag("group") else { return nil }
        var sender: [String: RichPushJSONValue] = [:]
        sender["id"] = args.value("sender-id").map(RichPushJSONValue.string)
        sender["name"] = args.value("sender-name").map(RichPushJSONValue.string)
        sender["avatar"] = args.value("sender-avatar").map(RichPushJSONValue.string)
        var root: [String: RichPushJSONValue] = ["sender": .object(sender)]
        if args.value("conversation-id") != nil || args.value("conversation-name") != nil || args.value("conversation-avatar") != nil
            || args.flag("group")
        {
            var conversation: [String: RichPushJSONValue] = [:]
            conversation["id"] = args.value("conversation-id").map(RichPushJSONValue.string)
            conversation["name"] = args.value("conversation-name").map(RichPushJSONValue.string)
            conversation["avatar"] = args.value("conversation-avatar").map(RichPushJSONValue.string)
            if args.flag("group") { conversation["group"] = .bool(true) }
            root["conversation"] = .object(conversation)
        }
        let reading = RichPushMessage.read(from: .object(root))
        guard let message = reading.message else {
            let option = { (path: String) in "--" + path.replacingOccurrences(of: ".", with: "-") }
            let problem = reading.problems.first { $0.isError } ?? reading.problems[0]
            throw UsageError(command: "send", message: "\(option(problem.keyPath)): \(problem.message)")
        }
        return message
    }
}
