import Foundation
import RichPushCore
import RichPushProvider

/// `richpush send`: sends one notification to one or many device tokens through APNs.
enum SendCommand {
    static let spec = CommandSpec(
        name: "send",
        summary: "Send a notification through APNs (HTTP/2, token or certificate auth), linted first",
        usage: """
            richpush send (--key AuthKey_KEYID.p8 [--key-id KEYID] --team-id TEAMID | --cert FILE [--cert-key FILE] [--cert-password PASS])
                   --topic BUNDLE_ID [--sandbox | --apns-url URL] [--ca-file PEM]
                   (--token HEX... | --tokens FILE) (--payload FILE | --title T [--subtitle S] --body B [--image URL] [--media-key PATH])
                   [--push-id ID] [--push-type TYPE] [--priority N] [--expiration SECONDS] [--collapse-id ID] [--apns-id UUID]
                   [--concurrency N] [--max-attempts N] [--dry-run]
            """,
        discussion: """
            The payload is linted first (as `richpush lint`); an error stops the send. Each token
            gets one JSON line on stdout: {"token", "apns-id", "status", "reason", "outcome",
            "attempts", "message"}. With --tokens, a progress bar and a summary go to stderr.
            All requests share one HTTP/2 connection (up to --concurrency streams) and one
            provider token (ES256 JWT, renewed every 50 minutes, never per request).

            Auth: token auth with --key/--key-id/--team-id (the .p8 contents are never printed),
            or certificate auth with --cert (a .p12, or PEM with --cert-key).

            Environment (used when the option is absent): RICHPUSH_APNS_KEY, RICHPUSH_APNS_KEY_ID,
            RICHPUSH_APNS_TEAM_ID, RICHPUSH_APNS_TOPIC, RICHPUSH_APNS_URL, RICHPUSH_APNS_CA_FILE,
            RICHPUSH_APNS_CERT, RICHPUSH_APNS_CERT_PASSWORD, RICHPUSH_APNS_SANDBOX=1.

            Exit status: 0 every token accepted; 2 some tokens not accepted (inactive, bad, retries
            exhausted); 1 a configuration error (bad key, team, topic) or a payload error; 64 usage.
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
            .value("ca-file", "PEM", help: "Extra trust roots for --apns-url (a test CA). Env RICHPUSH_APNS_CA_FILE."),
            .value("token", "HEX", repeatable: true, help: "A device token (hex); repeatable."),
            .value("tokens", "FILE", help: "A file of device tokens, one per line (# comments, blank lines ignored); '-' = stdin."),
            .value("payload", "FILE", help: "The payload JSON file (or - for stdin)."),
            .value("title", "TEXT", help: "Build the payload: alert title."),
            .value("subtitle", "TEXT", help: "Build the payload: alert subtitle."),
            .value("body", "TEXT", help: "Build the payload: alert body."),
            .value("image", "URL", help: "Build the payload: media URL (https); sets mutable-content: 1."),
            .value("media-key", "PATH", help: "Where --image goes (default image-url; e.g. aps.alert.image, url, media-url)."),
            .value("push-id", "ID", help: "push_id put in the payload (reported back by the extension's receipt)."),
            .value("push-type", "TYPE", help: "apns-push-type: alert (default), background, voip, …"),
            .value("priority", "N", help: "apns-priority: 10, 5 or 1."),
            .value("expiration", "SECONDS", help: "apns-expiration: keep trying for SECONDS from now (0 = now or never)."),
            .value("collapse-id", "ID", help: "apns-collapse-id (at most 64 bytes, Apple)."),
            .value("apns-id", "UUID", help: "apns-id for the notification (default: APNs makes one per request)."),
            .value("concurrency", "N", help: "Concurrent HTTP/2 streams on the one connection (default 500)."),
            .value("max-attempts", "N", help: "Requests per token at most, for 429/5xx retries (default 4)."),
            .flag("dry-run", help: "Lint and print the payload; send nothing."),
        ],
        run: run
    )

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let env = ProcessInfo.processInfo.environment
        func setting(_ name: String, _ variable: String) -> String? {
            args.value(name) ?? env[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        guard args.positionals.isEmpty else {
            throw UsageError(command: "send", message: "unexpected argument '\(args.positionals[0])'")
        }

        // Payload.
        let payloadData = try await buildPayload(args)

        // Tokens.
        var tokens = args.values("token")
        let fromFile = args.value("tokens")
        if let file = fromFile {
            let fileTokens = tokenLines(try await LintCommand.readInput(file))
            if fileTokens.isEmpty, !args.flag("dry-run") {
                throw UsageError(command: "send", message: "the tokens file \(file == "-" ? "on stdin" : file) has no device tokens (one hex token per line; blank lines and # comments are ignored)")
            }
            tokens += fileTokens
        }

        // Notification.
        guard let topic = setting("topic", "RICHPUSH_APNS_TOPIC") else {
            throw UsageError(command: "send", message: "'--topic' is required: the app's bundle id (or set RICHPUSH_APNS_TOPIC)")
        }
        var notification = APNsNotification(payload: payloadData, topic: topic)
        if let type = args.value("push-type") {
            guard APNsPushType.documented.map(\.rawValue).contains(type) else {
                throw UsageError(command: "send", message: "'--push-type \(type)' is not an APNs push type; use one of \(APNsPushType.documented.map(\.rawValue).joined(separator: ", "))")
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
                throw UsageError(command: "send", message: "'--collapse-id' is \(collapseID.utf8.count) bytes; Apple allows at most \(APNsNotification.maximumCollapseIDBytes) bytes")
            }
            notification.collapseID = collapseID
        }
        if let raw = args.value("apns-id") {
            guard let id = UUID(uuidString: raw) else {
                throw UsageError(command: "send", message: "'--apns-id \(raw)' is not a UUID (8-4-4-4-12 hex digits)")
            }
            notification.apnsID = id
        }
        let findings: [LintFinding]
        do {
            findings = try notification.validate()
        } catch let error as RichPushError where error.code == .payloadRejected {
            // Suggest --fix only when it can help: a fixable error in a payload file.
            let file = args.value("payload").flatMap { $0 == "-" ? nil : $0 }
            let fixable = PayloadLinter(voip: notification.pushType == .voip).lint(payloadData).contains { $0.severity == .error && $0.fixable }
            guard let file, fixable else { throw error }
            throw RichPushError(code: error.code, message: error.message + "; run `richpush lint --fix --output FIXED.json \(file)`", underlying: error)
        }
        for finding in findings { LintCommand.printError("richpush send: \(finding)") }
        if args.flag("dry-run") {
            FileHandle.standardOutput.write(payloadData + Data("\n".utf8))
            return 0
        }
        guard !tokens.isEmpty else {
            throw UsageError(command: "send", message: "give --token HEX (repeatable) or --tokens FILE")
        }

        // Where and how.
        let environment: APNsEnvironment
        if let url = setting("apns-url", "RICHPUSH_APNS_URL") {
            guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
                throw UsageError(command: "send", message: "'--apns-url \(url)' must start with https:// (or http:// for an h2c test server)")
            }
            environment = .custom(url)
        } else {
            environment = args.flag("sandbox") || env["RICHPUSH_APNS_SANDBOX"] == "1" ? .sandbox : .production
        }
        var transport = TransportConfiguration()
        transport.caFile = setting("ca-file", "RICHPUSH_APNS_CA_FILE")
        transport.maxConcurrentStreams = try args.integer("concurrency", in: 1...1000) ?? 500
        var retry = APNsRetryPolicy()
        retry.maxAttempts = try args.integer("max-attempts", in: 1...10) ?? 4

        if setting("cert", "RICHPUSH_APNS_CERT") == nil, args.value("cert-key") != nil {
            throw UsageError(command: "send", message: "'--cert-key' goes with '--cert FILE' (a PEM client certificate whose key is in another file)")
        }
        if setting("cert", "RICHPUSH_APNS_CERT") != nil, setting("key", "RICHPUSH_APNS_KEY") != nil, args.value("key") != nil {
            throw UsageError(command: "send", message: "give either '--key' (token auth) or '--cert' (certificate auth), not both")
        }
        let authentication: APNsAuthentication
        var clientCertificate: TransportConfiguration.ClientCertificate?
        if let cert = setting("cert", "RICHPUSH_APNS_CERT") {
            let certificate = TransportConfiguration.ClientCertificate(certificateFile: cert, keyFile: args.value("cert-key"), passphrase: setting("cert-password", "RICHPUSH_APNS_CERT_PASSWORD"))
            clientCertificate = certificate
            authentication = .certificate(certificate)
        } else {
            guard let keyPath = setting("key", "RICHPUSH_APNS_KEY") else {
                throw UsageError(command: "send", message: "give '--key AuthKey_KEYID.p8' and '--team-id TEAMID' (add --key-id when the file is not named AuthKey_<KEYID>.p8), or --cert for certificate auth")
            }
            let keyName = URL(fileURLWithPath: keyPath).lastPathComponent
            let derivedID = keyName.hasPrefix("AuthKey_") && keyName.hasSuffix(".p8") ? String(keyName.dropFirst(8).dropLast(3)) : nil
            guard let keyID = setting("key-id", "RICHPUSH_APNS_KEY_ID") ?? derivedID else {
                throw UsageError(command: "send", message: "'--key-id KEYID' is needed: the key file \(keyName) is not named AuthKey_<KEYID>.p8 (the key id is the 10 characters Apple shows next to the key)")
            }
            guard Self.isAppleID(keyID) else {
                throw UsageError(command: "send", message: "the key id '\(keyID)' is not 10 letters or digits (Apple's key ids look like ABC123DEFG); check --key-id or the AuthKey_<KEYID>.p8 file name")
            }
            guard let teamID = setting("team-id", "RICHPUSH_APNS_TEAM_ID") else {
                throw UsageError(command: "send", message: "'--team-id' is required (Membership details in the developer account), or set RICHPUSH_APNS_TEAM_ID")
            }
            guard Self.isAppleID(teamID) else {
                throw UsageError(command: "send", message: "'--team-id \(teamID)' is not 10 letters or digits (Apple's team ids look like ABCDE12345; see Membership details)")
            }
            let signer = try ES256Signer(contentsOf: URL(fileURLWithPath: keyPath))
            authentication = .token(APNsTokenManager(signer: signer, keyID: keyID, teamID: teamID))
        }

        // Certificate files are checked before any request: a wrong file is one clear error, not
        // a TLS failure per token.
        var checked = transport
        checked.clientCertificate = clientCertificate
        try checked.checkCertificateFiles()
        let client = try APNsClient(environment: environment, authentication: authentication, transport: transport, retry: retry)
        defer { client.shutdown() }
        let progress = fromFile != nil ? ProgressBar(total: tokens.count) : nil
        let batch = try await client.send(notification, to: tokens) { done, total in progress?.update(done: done) }
        progress?.finish()
        var lines = ""
        lines.reserveCapacity(batch.results.count * 200)
        for result in batch.results {
            lines += result.jsonValue.compactText()
            lines += "\n"
        }
        FileHandle.standardOutput.write(Data(lines.utf8))
        if fromFile != nil || tokens.count > 1 {
            let counts = batch.countsByOutcome.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            LintCommand.printError("richpush send: \(tokens.count) tokens, sent \(batch.sent), accepted \(batch.accepted) (\(counts)); \(client.connectionsOpened) connection(s) to \(environment)")
        }
        if let stop = batch.stoppedBy {
            throw stop
        }
        return batch.accepted == tokens.count ? 0 : 2
    }

    /// Whether `id` has the shape of an Apple key id or team id: 10 ASCII letters or digits.
    static func isAppleID(_ id: String) -> Bool {
        id.utf8.count == 10 && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
    }

    /// The device tokens of a tokens file: one per line, blanks around them, blank lines and
    /// `#` comments ignored. Works on bytes (a file of 100,000 tokens is read in milliseconds);
    /// a line with non-ASCII bytes is trimmed by Foundation's Unicode whitespace rules.
    static func tokenLines(_ data: Data) -> [String] {
        var tokens: [String] = []
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            tokens.reserveCapacity(bytes.count / 65 + 1)
            func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
            var lineStart = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != 0x0A, bytes[lineEnd] != 0x0D { lineEnd += 1 }
                var start = lineStart, end = lineEnd
                while start < end, isBlank(bytes[start]) { start += 1 }
                while end > start, isBlank(bytes[end - 1]) { end -= 1 }
                if start < end, bytes[start] != UInt8(ascii: "#") {
                    let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    if line.allSatisfy({ $0 < 0x80 }) {
                        tokens.append(String(decoding: line, as: UTF8.self))
                    } else {
                        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                        if !text.isEmpty, !text.hasPrefix("#") { tokens.append(text) }
                    }
                }
                lineStart = lineEnd + 1
            }
        }
        return tokens
    }

    static func buildPayload(_ args: ParsedArguments) async throws -> Data {
        let built = ["title", "subtitle", "body", "image", "media-key"].contains { args.value($0) != nil }
        if let file = args.value("payload") {
            if built {
                throw UsageError(command: "send", message: "give either --payload FILE or --title/--body/--image, not both")
            }
            var data = try await LintCommand.readInput(file)
            if let pushID = args.value("push-id") {
                let json = try JSONValue.parseStrictly(data)
                data = json.setting(.string(pushID), at: "push_id").jsonData(sortedKeys: true)
            }
            return data
        }
        guard built else {
            throw UsageError(command: "send", message: "give --payload FILE, or --title/--body (and --image URL) to build one")
        }
        var payload = PushPayload(title: args.value("title"), subtitle: args.value("subtitle"), body: args.value("body"))
        if let key = args.value("media-key") { payload.mediaKeyPath = PayloadKeyPath(key) }
        payload.mediaURL = args.value("image")
        payload.pushID = args.value("push-id")
        return payload.jsonData()
    }
}
