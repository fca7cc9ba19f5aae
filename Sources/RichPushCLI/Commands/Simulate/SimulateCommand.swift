import Foundation
@_spi(RichPushInternal) import RichPushExtension

/// `richpush simulate`: runs the extension pipeline on a payload file, as iOS would, against real servers.
enum SimulateCommand {
    static let spec = CommandSpec(
        name: "simulate",
        summary: "Run the notification service extension pipeline on a payload file and show what the user would see.",
        usage: "richpush simulate PAYLOAD.json|- [options]   (options below; - reads the payload from standard input)",
        discussion: """
            Reads PAYLOAD.json (the JSON object APNs hands to the extension; - reads it from
            standard input), builds the best-attempt text, fetches the media URL it names (https
            only unless --allow-http-host, Accept-Encoding: identity), sniffs the type (Apple's
            attachment table), checks the file's structure (a cut-short or broken file gives
            reason corrupt_media), writes the attachment under --out, posts the receipt, and
            prints the delivered content. Exactly what an iOS Notification
            Service Extension using RichPush would do.

            A payload that is not a JSON object, or whose aps is malformed, is delivered as iOS
            delivers it, unchanged: outcome "original", reason "invalid_payload", with a warning
            on standard error naming the problem.

            Media URL keys tried, in order: \(RichPushPayloadKeyPath.defaultMediaKeyPaths.map(\.description).joined(separator: ", ")).
            Push id keys: \(RichPushPayloadKeyPath.defaultPushIDKeyPaths.map(\.description).joined(separator: ", ")).
            These cover the articles' payloads and those of \(RichPushVendor.all.map(\.name).joined(separator: ", ")).
            A top-level url is media only with a media file extension (.jpg, .mp4, …); a deep
            link (myapp://…, https://example.com/articles/42) is not fetched.

            --settings Info.plist applies the extension's RichPush dictionary with the code the
            extension runs on iOS (RichPushSettings); the options below then override it. Like
            the Info.plist's MediaKeyPaths and PushIDKeyPaths, --media-key and --push-id-key are
            tried before the default (or --settings) keys; --replace-media-keys and
            --replace-push-id-keys use only the keys given.

            A message from a person (the payload's sender {id, name, avatar} and conversation
            {id, name, avatar, group}, at --sender-key / --conversation-key before the defaults
            sender and conversation) becomes a communication notification: the avatars are
            fetched under the media rules within the deadline (WebP, HEIC and other formats iOS
            does not draw are converted, here with libvips where iOS uses ImageIO), the host
            plays INSendMessageIntent's donation and the content's update, and the output shows
            the sender, the conversation, the avatars' bytes and, when it fell back to the normal
            notification, why (avatar_failed, intent_failed). --without-communication-capability
            plays an app without the capability (iOS refuses the update: intent_failed).

            A receipt not sent says why ("receipt skipped: no_push_id …", "skipReason" in --json):
            no_receipts_url, no_push_id, per_delivery_id (the vendor's id names one delivery,
            e.g. Customer.io), vendor_has_no_id (e.g. Expo).

            On Linux the real RichPushServiceExtension (the class an app's extension subclasses)
            runs in a host that plays iOS: it calls didReceive, calls serviceExtensionTimeWillExpire()
            at --budget, shows the original content if the handler is never called, and moves the
            shown attachment into --out; --json adds "host": {expiryCalled, handlerCalls,
            attachmentsMovedTo, peakMemoryBytes}. peakMemoryBytes is this whole Linux process
            (Swift runtime and Foundation included, ~23 MB before any work), not a figure to hold
            against iOS's ~24 MB extension limit.

            One structured log line per notification goes to standard error, prefixed
            "richpush.log " (on iOS it goes to the unified log, subsystem dev.richpush).

            Exit status: 0 whenever a notification was delivered, whatever the outcome (see
            "outcome" and "reason"); 64 for bad command-line use (including an --out, --state or
            --cache folder that cannot be written); 1 when the payload file cannot be read.

            Example:
              richpush simulate payload.json --allow-http-host 127.0.0.1 --receipts-url http://127.0.0.1:8080/v1/receipts --json
              richpush simulate - --json < payload.json
            """,
        options: [
            .value("deadline", "SECONDS", help: "The pipeline's own stop for media work (default 25).\nThen it delivers the best attempt with reason timeout."),
            .value(
                "budget", "SECONDS",
                help: "The host's limit (default 30, Apple's ~30 s): then it calls\nexpire(), as iOS calls serviceExtensionTimeWillExpire()."),
            .value("receipts-url", "URL", help: "POST the receipt here (form-encoded, push_id first).\nWithout it no receipt is sent (status skipped)."),
            .value(
                "allow-http-host", "HOST", repeatable: true,
                help: "Allow cleartext http:// to HOST (an App Transport\nSecurity exception), for media and receipts."),
            .value("out", "DIR", help: "Where attachment folders go (created if missing; must be\nwritable; default: a new temporary folder, printed)."),
            .flag("json", help: "Print one JSON object: outcome, reason, httpStatus, pushId,\nelapsedMs, content, receipt (and host, on Linux)."),
            .value(
                "settings", "PLIST",
                help: "The extension's Info.plist: its RichPush dictionary is applied as\non iOS (same parsing code); options below override it."),
            .value(
                "media-key", "PATH", repeatable: true,
                help: "A key path for the media URL (dotted, e.g. data.image), tried\nbefore the default keys (as MediaKeyPaths); repeat for an order."),
            .flag("replace-media-keys", help: "Use only the --media-key paths (as MediaKeyPathsReplace)."),
            .value("push-id-key", "PATH", repeatable: true, help: "A key path for the push id, tried before the default keys\n(as PushIDKeyPaths)."),
            .flag("replace-push-id-keys", help: "Use only the --push-id-key paths (as PushIDKeyPathsReplace)."),
            .value(
                "sender-key", "PATH", repeatable: true,
                help: "A key path for a message's sender {id, name, avatar}, tried before\nthe default key sender (as SenderKeyPaths)."),
            .value(
                "conversation-key", "PATH", repeatable: true,
                help: "A key path for its conversation {id, name, avatar, group}, tried\nbefore the default key conversation (as ConversationKeyPaths)."),
            .flag("no-communication", help: "Show a message's sender as a normal notification\n(as CommunicationNotifications false)."),
            .flag(
                "without-communication-capability",
                help: "Play an app without the Communication Notifications capability:\niOS refuses to update the content from the intent (intent_failed)."),
            .value(
                "default-body", "TEXT",
                help:
                    "Body shown when the payload's body is empty (default: none,\nthe body stays empty), e.g. \"\(RichPushConfiguration.articleDefaultBody)\" (\"check it now\")."
            ),
            .value(
                "media-category", "[KIND=]ID", repeatable: true,
                help:
                    "Category set when media is attached and the payload names\nnone: ID for every kind, or KIND=ID for image, video or audio\n(default image=image, video=video, audio=audio)."
            ),
            .flag("no-media-category", help: "Never set a category."),
            .value("transport", "NAME", help: "HTTP layer: curl (default on Linux) or urlsession."),
            .value(
                "keys", "FILE",
                help:
                    "Key file for encrypted payloads (\"enc\"): {\"KID\": \"<base64 of 32 bytes>\"}.\nWithout it an encrypted payload shows the server's alert (decrypt_failed)."
            ),
            .value(
                "cache", "DIR",
                help: "Media cache directory (the App Group container on iOS): keyed by\nURL, 50 MB, least recently used evicted, honours Cache-Control."),
            .value(
                "state", "DIR",
                help:
                    "Shared state directory (App Group): receipt queue (retried on\nlater runs, once per push), install id (a stable receipt_id per push),\nbadge counter for badge_op. Without it every run is a fresh install."
            ),
        ],
        run: run
    )

    @Sendable static func run(_ args: ParsedArguments) async throws -> Int32 {
        let command = spec.name
        guard let path = args.positionals.first else {
            throw UsageError(command: command, message: "missing PAYLOAD.json (the payload file to simulate)")
        }
        guard args.positionals.count == 1 else {
            throw UsageError(command: command, message: "expected one payload file, got \(args.positionals.count): \(args.positionals.joined(separator: " "))")
        }
        var configuration = RichPushConfiguration()
        if let plist = args.value("settings") {
            configuration = try SimulateSettings.read(plist)
        }
        if let deadline = try args.seconds("deadline", in: 0.1...600) { configuration.deadline = deadline }
        let budget = try args.seconds("budget", in: 0.1...600) ?? 30
        if let raw = args.value("receipts-url") {
            guard let url = URL(string: raw), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
                throw UsageError(
                    command: command, message: "'--receipts-url \(raw)' must be an http(s) URL with a host, e.g. https://stats.example.com/v1/receipts")
            }
            configuration.receiptsURL = url
        }
        configuration.allowedHTTPHosts.formUnion(args.values("allow-http-host").map { $0.lowercased() })
        for option in ["media-key", "push-id-key", "sender-key", "conversation-key"] {
            for key in args.values(option) where key.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
                throw UsageError(
                    command: command, message: "--\(option) \"\(key)\" is not a key path (empty or with an empty part): give dotted keys, e.g. data.image")
            }
        }
        configuration.mediaKeyPaths = try SimulateSettings.keyPaths(
            args.values("media-key").map { RichPushPayloadKeyPath($0) }, replace: args.flag("replace-media-keys"), option: "media-key",
            before: configuration.mediaKeyPaths)
        configuration.pushIDKeyPaths = try SimulateSettings.keyPaths(
            args.values("push-id-key").map { RichPushPayloadKeyPath($0) }, replace: args.flag("replace-push-id-keys"), option: "push-id-key",
            before: configuration.pushIDKeyPaths)
        configuration.senderKeyPaths = try SimulateSettings.keyPaths(
            args.values("sender-key").map { RichPushPayloadKeyPath($0) }, replace: false, option: "sender-key", before: configuration.senderKeyPaths)
        configuration.conversationKeyPaths = try SimulateSettings.keyPaths(
            args.values("conversation-key").map { RichPushPayloadKeyPath($0) }, replace: false, option: "conversation-key",
            before: configuration.conversationKeyPaths)
        if args.flag("no-communication") { configuration.communicationNotifications = false }
        // Where iOS converts an avatar with ImageIO, the host converts it with libvips.
        if configuration.avatarConverter == nil { configuration.avatarConverter = OptimizerAvatarConverter() }
        if let body = args.value("default-body") { configuration.defaultBody = body.isEmpty ? nil : body }
        if args.flag("no-media-category"), !args.values("media-category").isEmpty {
            throw UsageError(command: command, message: "give either --media-category or --no-media-category, not both")
        }
        if args.flag("no-media-category") { configuration.mediaCategoryIdentifiers = [:] }
        for value in args.values("media-category") {
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 {
                guard let kind = RichPushMediaKind(rawValue: parts[0]), !parts[1].isEmpty else {
                    throw UsageError(
                        command: command,
                        message: "'--media-category \(value)': KIND must be image, video or audio and ID not empty, e.g. --media-category video=movie")
                }
                configuration.mediaCategoryIdentifiers[kind] = parts[1]
            } else {
                guard !value.isEmpty else {
                    throw UsageError(command: command, message: "'--media-category' needs an identifier; --no-media-category sets none")
                }
                for kind in RichPushMediaKind.allCases { configuration.mediaCategoryIdentifiers[kind] = value }
            }
        }
        let transport: any MediaTransport
        switch args.value("transport")?.lowercased() {
        case nil: transport = NotificationPipeline.defaultTransport
        case "urlsession"?: transport = URLSessionMediaTransport()
        #if canImport(CCurl)
        case "curl"?: transport = CurlMediaTransport()
        #endif
        case let other?:
            throw UsageError(command: command, message: "'--transport \(other)' is not a transport here; use curl or urlsession")
        }

        let out: URL
        let outGiven = args.value("out") != nil
        if let dir = args.value("out") {
            out = try SimulateFiles.writableDirectory(dir, option: "out")
        } else {
            out = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-simulate-\(UUID().uuidString.lowercased())", isDirectory: true)
        }
        configuration.attachmentsDirectory = out
        if let keys = args.value("keys") { configuration.keyProvider = try FileKeyProvider(contentsOf: URL(fileURLWithPath: keys), option: "--keys") }
        if let cache = args.value("cache") { configuration.mediaCache = MediaCache(directory: try SimulateFiles.writableDirectory(cache, option: "cache")) }
        if let state = args.value("state") { configuration.stateDirectory = try SimulateFiles.writableDirectory(state, option: "state") }
        // The structured log line (one per notification), recognisable among the other messages.
        configuration.logger = RichPushLogger { line in RichPushCommandLine.printError("richpush.log " + line) }

        let data = try await SimulateFiles.readPayload(path)
        let name = path == "-" ? "standard input" : path
        let parsed = try? RichPushJSONValue.parse(data)
        if let json = parsed, (try? RichPushNotificationPayload(json: json)) != nil, json["aps"]?["mutable-content"] != .int(1) {
            RichPushCommandLine.printError(
                "note: aps.mutable-content is not the integer 1; iOS would not run a service extension for this payload (simulating anyway)")
        }

        #if !canImport(UserNotifications)
        // The real RichPushServiceExtension in the Linux host: the pipeline writes into
        // the extension's own folder; the host moves shown attachments into --out, as iOS moves them.
        let extensionFolder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "richpush-extension-\(UUID().uuidString.lowercased())", isDirectory: true)
        configuration.attachmentsDirectory = extensionFolder
        let hosted = await HostedSimulation.run(
            payload: data, configuration: configuration, transport: transport, budget: budget, store: out,
            communication: args.flag("without-communication-capability") ? .notAllowed : .allowed)
        try? FileManager.default.removeItem(at: extensionFolder)
        let result = hosted.result
        let host: RichPushJSONValue? = HostedSimulation.json(hosted.report)
        let hostSummary: String? = HostedSimulation.summary(hosted.report)
        #else
        let pipeline = NotificationPipeline(configuration: configuration, transport: transport)
        let run = pipeline.start(payload: data) { _ in }
        let budgetTask = Task {
            try? await Task.sleep(for: .milliseconds(Int(budget * 1000)))
            if !Task.isCancelled { run.expire() }
        }
        var result = await run.result()
        budgetTask.cancel()
        result.receipt = await run.waitUntilSettled()
        let host: RichPushJSONValue? = nil
        let hostSummary: String? = nil
        #endif
        if result.reason == .invalidPayload {
            let problem = result.message.hasPrefix("invalid payload: ") ? String(result.message.dropFirst("invalid payload: ".count)) : result.message
            RichPushCommandLine.printError(
                "warning: \(name) is not a valid payload: \(problem). Delivered unchanged, as iOS would (outcome original, reason invalid_payload)."
            )
        }
        if !outGiven, result.content.attachments.isEmpty {
            try? FileManager.default.removeItem(at: out)  // nothing attached: leave no empty folder behind
        }

        // A message from a person, with communication notifications off: said, not silently dropped.
        let messageIgnored =
            !configuration.communicationNotifications
            && parsed.map {
                RichPushMessage.read(from: $0, senderKeyPaths: configuration.senderKeyPaths, conversationKeyPaths: configuration.conversationKeyPaths)
                    .message != nil
            } == true
        if args.flag("json") {
            try StandardOutput.write(json(result, host: host).jsonData(sortedKeys: true) + Data("\n".utf8))
            if !outGiven, !result.content.attachments.isEmpty {
                RichPushCommandLine.printError("attachments in \(out.path)")
            }
        } else {
            // The summary quotes the payload (title, body, sender): nothing in it may drive the terminal.
            try StandardOutput.print(
                TerminalText.visible(
                    summary(
                        result, out: out, receiptsHost: configuration.receiptsURL?.host, aps: parsed?["aps"],
                        messageIgnored: messageIgnored ? (args.flag("no-communication") ? "--no-communication" : "CommunicationNotifications false") : nil)
                        + (hostSummary ?? "")), terminator: "")
        }
        return 0
    }

    /// The `--json` object (plus `"host"` when run in the Linux extension host).
    static func json(_ r: RichPushResult, host: RichPushJSONValue? = nil) -> RichPushJSONValue {
        func opt(_ s: String?) -> RichPushJSONValue { s.map(RichPushJSONValue.string) ?? .null }
        func opt(_ i: Int?) -> RichPushJSONValue { i.map(RichPushJSONValue.int) ?? .null }
        let c = r.content
        return .object(
            [
                "outcome": .string(r.outcome.rawValue),
                "reason": opt(r.reason?.rawValue),
                "httpStatus": opt(r.httpStatus),
                "pushId": opt(r.pushID),
                "pushIdKey": opt(r.pushIDKeyPath?.description),
                "vendor": opt(r.vendor?.identifier),
                "elapsedMs": .int(r.elapsedMs),
                "content": .object([
                    "title": .string(c.title),
                    "subtitle": .string(c.subtitle),
                    "body": .string(c.body),
                    "categoryIdentifier": .string(c.categoryIdentifier),
                    "threadIdentifier": .string(c.threadIdentifier),
                    "badge": opt(c.badge),
                    "sound": opt(c.sound),
                    "attachments": .array(
                        c.attachments.map {
                            .object(["identifier": .string($0.identifier), "file": .string($0.file), "type": .string($0.type), "bytes": .int($0.bytes)])
                        }),
                ]),
                "receipt": .object([
                    "status": .string(r.receipt.status.rawValue), "httpStatus": opt(r.receipt.httpStatus), "error": opt(r.receipt.error),
                    "skipReason": r.receipt.skipReason.map { .object(["code": .string($0.code.rawValue), "message": .string($0.message)]) } ?? .null,
                ]),
                "details": r.details.json,
            ].merging(host.map { ["host": $0] } ?? [:]) { first, _ in first })
    }

    /// What each interruption level does on the device, and what it needs (Apple:
    /// `UNNotificationInterruptionLevel`).
    static let levelNotes: [String: String] = [
        "passive": "no sound, no lit screen: straight to the notification list",
        "active": "the default: sound and lit screen, held back by Focus",
        "time-sensitive":
            "breaks through Focus and the scheduled summary, only if the app has the Time Sensitive Notifications capability; without it, shown as active",
        "critical": "plays its sound through mute and Focus, only with Apple's critical-alerts entitlement; without it, shown as active",
    ]

    /// The readable summary: what the user would see, then why.
    ///
    /// - Parameters:
    ///   - r: the pipeline's result.
    ///   - out: where attachments were written.
    ///   - receiptsHost: the receipts URL's host, for naming `--allow-http-host`.
    ///   - aps: the payload's `aps`, for what iOS takes from it before the extension runs (the
    ///     interruption level, the relevance score, a critical sound).
    ///   - messageIgnored: the setting that turned communication notifications off, when the
    ///     payload carries a message from a person (`nil` otherwise).
    /// - Returns: the lines, each ending in a newline.
    static func summary(
        _ r: RichPushResult, out: URL, receiptsHost: String? = nil, aps: RichPushJSONValue? = nil, messageIgnored: String? = nil
    ) -> String {
        let c = r.content
        var lines: [String] = []
        func add(_ label: String, _ value: String) { lines.append(label.padding(toLength: max(12, label.count + 1), withPad: " ", startingAt: 0) + value) }
        var outcome = r.outcome.rawValue
        if let reason = r.reason { outcome += " (reason: \(reason.rawValue)" + (r.httpStatus.map { ", HTTP \($0)" } ?? "") + ")" }
        add("outcome", outcome + " in \(r.elapsedMs) ms")
        if !r.message.isEmpty { add("", r.message) }
        if let url = r.mediaURL { add("media URL", url.absoluteString) }
        add("push id", r.pushID.map { id in id + (r.pushIDKeyPath.map { " (\($0))" } ?? "") } ?? "none")
        if let vendor = r.vendor { add("vendor", vendor.name) }
        add("title", c.title)
        if !c.subtitle.isEmpty { add("subtitle", c.subtitle) }
        add("body", c.body)
        if !c.categoryIdentifier.isEmpty { add("category", c.categoryIdentifier) }
        if !c.threadIdentifier.isEmpty { add("thread", c.threadIdentifier) }
        if let badge = c.badge { add("badge", String(badge)) }
        if let sound = aps?["sound"], sound.objectValue != nil {
            // A sound dictionary: a critical alert's sound (`{"critical": 1, "name", "volume"}`).
            let critical = sound["critical"]?.integerLiteralValue == 1
            let volume = sound["volume"]?.doubleValue.map { ", volume \($0)" } ?? ""
            add("sound", "\(sound["name"]?.stringValue ?? c.sound ?? "default")\(critical ? ", critical" : "")\(volume)")
        } else if let sound = c.sound {
            add("sound", sound)
        }
        if let level = aps?["interruption-level"]?.stringValue {
            add("interruption", level + (Self.levelNotes[level].map { " (\($0))" } ?? " (not a level Apple documents: iOS shows it as active)"))
        }
        if let score = aps?["relevance-score"] { add("relevance", score.doubleValue.map { "\($0)" } ?? "\(score) (not a number: ignored)") }
        for a in c.attachments {
            add("attachment", "\(a.identifier): \(a.type), \(a.bytes) bytes")
            add("", a.file)
        }
        for (label, value) in r.details.summaryRows { add(label, value) }
        if let setting = messageIgnored {
            add("message", "a message from a person, shown as a normal notification: communication notifications are off (\(setting))")
        }
        var receipt = r.receipt.status.rawValue
        if let skip = r.receipt.skipReason {
            receipt += ": " + SettingNames.namingSimulateOption(skip.description, setting: r.receipt.setting, host: receiptsHost)
        } else if let error = r.receipt.error {
            receipt += ": " + SettingNames.namingSimulateOption(error, setting: r.receipt.setting, host: receiptsHost)
        } else if let status = r.receipt.httpStatus {
            receipt += " (HTTP \(status))"
        } else if r.receipt.status == .duplicate {
            receipt += " (this push was already seen with this --state; not sent again)"
        }
        add("receipt", receipt)
        if !c.attachments.isEmpty { add("files in", out.path) }
        return lines.joined(separator: "\n") + "\n"
    }
}
