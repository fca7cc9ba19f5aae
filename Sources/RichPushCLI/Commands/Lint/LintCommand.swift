import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushExtension

/// `richpush lint PAYLOAD.json [--fix [--output FILE]] [--voip] [--settings PLIST] [--media-key PATH]... [--push-id-key PATH]... [--json]`:
/// checks a payload before it is sent, and says what the RichPush extension would take from it.
enum LintCommand {
    static let spec = CommandSpec(
        name: "lint",
        summary: "Check a push payload against Apple's rules (size, mutable-content, media URL) and fix it",
        usage:
            "richpush lint PAYLOAD.json [--fix [--output FILE]] [--voip] [--settings PLIST] [--media-key PATH]... [--push-id-key PATH]... [--json]\n       [--allow-http-host HOST]... [--probe [--media-allow-host HOST]... [--budget SECONDS] [--media-ca-file PEM]]\n       richpush lint PAYLOAD.json --live-activity [--shape FILE]... [--attributes-type NAME] [--priority N] [--broadcast [--channel-policy 0|1] [--expiration S]] [--json]",
        discussion: """
            Prints one line per finding: SEVERITY CODE KEY: message. Checks: at most 4096 bytes
            (5120 with --voip; Apple's limits, measured as compact JSON as sent); media needs a
            visible alert and aps["mutable-content"] = 1 as an integer; the wrong spellings
            ("1", true, mutable_content, the flag outside aps, FCM legacy
            notification.mutable_content) are errors by name; a background push carrying media
            never reaches the extension; media URLs must be https (http:// to a host
            --allow-http-host names is a warning). A message from a person
            (sender {id, name, avatar}, conversation {id, name, avatar, group}) must have its id
            and name, https avatars and mutable-content (invalid_sender, invalid_conversation,
            insecure_avatar_url). Interruption levels: critical without a sound dictionary
            {"critical": 1, …} (critical_without_sound_dictionary), relevance-score and a sound's
            volume outside 0…1 (relevance_score_range, sound_volume_range) and a key in aps Apple
            does not define (unknown_aps_key, with the key probably meant) are warnings.

            --fix rewrites what has one right answer and writes the fixed payload to standard
            output (or to --output FILE); findings then go to standard error, marked "fixed"
            or left as they are.

            It also warns when the RichPush extension would find no media URL (no_media_url) or
            no push id (no_push_id, so no receipt), naming the keys it looked at and the vendor
            whose payload it recognised (OneSignal, Airship, Braze, …), and says on standard
            error what it would use: "the extension would use media … (key), push id … (key)".

            A payload with no finding gets one line on standard error: "PAYLOAD.json: ok, no
            findings (N of 4096 bytes); the extension would use …" (not with --json: no line
            means nothing found).

            --live-activity checks an ActivityKit payload instead (docs/live-activities.md): the
            event, timestamp/stale-date/dismissal-date as seconds since 1970, a start's
            attributes-type, attributes and alert, 4 KB of static plus dynamic data, 4096 bytes
            (5120 with --broadcast); with --shape FILE, content-state and attributes against the
            app's types (a Date as seconds since 2001, never an ISO string or 1970-based
            seconds); with --broadcast --channel-policy 0, a non-zero --expiration.

            Exit status: 0 when no error remains, 1 when an error remains, 64 on a usage error.
            Use "-" as PAYLOAD.json to read standard input.
            """,
        options: [
            .flag("fix", help: "Rewrite fixable mistakes; the fixed payload goes to stdout or --output."),
            .value("output", "FILE", help: "With --fix: write the fixed payload to FILE instead of stdout."),
            .flag("voip", help: "Apply the VoIP size limit (5120 bytes) instead of 4096."),
            .value(
                "settings", "PLIST",
                help:
                    "The extension's Info.plist: its RichPush MediaKeyPaths, PushIDKeyPaths,\nSenderKeyPaths and ConversationKeyPaths (read as on iOS) are the keys\nlooked at; its AllowedHTTPHosts may be http:// (as --allow-http-host)."
            ),
            .value(
                "media-key", "PATH", repeatable: true,
                help: "A media key path (repeatable), tried before the RichPush defaults\n(the articles' keys and each vendor's), as MediaKeyPaths."),
            .value("push-id-key", "PATH", repeatable: true, help: "A push id key path (repeatable), tried before the defaults."),
            .flag("json", help: "Print findings as JSON lines {severity, code, key, message, fixed}."),
        ] + probeOptions + liveActivityOptions,
        run: run
    )

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw UsageError(command: "lint", message: "give exactly one payload file (or - for stdin)")
        }
        if args.value("output") != nil && !args.flag("fix") {
            throw UsageError(command: "lint", message: "'--output' needs '--fix'")
        }
        let liveActivityOnly = ["shape", "attributes-type", "channel-policy", "expiration", "priority"].filter { args.value($0) != nil }
        if !args.flag("live-activity"), let first = liveActivityOnly.first ?? (args.flag("broadcast") ? "broadcast" : nil) {
            throw UsageError(command: "lint", message: "'--\(first)' needs '--live-activity'")
        }
        let data = try await readInput(path)
        if args.flag("live-activity") { return try runLiveActivity(data, path: path, args: args) }
        var linter = RichPushPayloadLinter(voip: args.flag("voip"))
        linter.checksExtensionLookup = true
        if let plist = args.value("settings") {
            let settings: RichPushSettings
            do {
                settings = try RichPushSettings.read(contentsOf: URL(fileURLWithPath: plist))
            } catch {
                throw UsageError(
                    command: "lint", message: "--settings: \((error as? RichPushError)?.message ?? "\(plist) cannot be read: \(error.localizedDescription)")")
            }
            for problem in settings.problems { printError("warning: \(plist): \(problem)") }
            linter.mediaKeyPaths = settings.pipeline.mediaKeyPaths
            linter.pushIDKeyPaths = settings.pipeline.pushIDKeyPaths
            linter.senderKeyPaths = settings.pipeline.senderKeyPaths
            linter.conversationKeyPaths = settings.pipeline.conversationKeyPaths
            linter.allowedHTTPHosts = settings.pipeline.allowedHTTPHosts
        }
        linter.allowedHTTPHosts.formUnion(MediaProbeOptions.allowedHTTPHosts(args))
        let keys = args.values("media-key").map { RichPushPayloadKeyPath($0) }
        linter.mediaKeyPaths = keys + linter.mediaKeyPaths.filter { !keys.contains($0) }
        let idKeys = args.values("push-id-key").map { RichPushPayloadKeyPath($0) }
        linter.pushIDKeyPaths = idKeys + linter.pushIDKeyPaths.filter { !idKeys.contains($0) }

        let findings = linter.lint(data)
        let parsedPayload = try? RichPushJSONValue.parseStrictly(data)
        let lookup = parsedPayload.map { "the extension would use " + linter.extensionLookup($0).summary }
        if !args.flag("json") {
            if findings.isEmpty {
                let size = parsedPayload?.jsonData(sortedKeys: false).count ?? data.count
                printError(
                    "richpush lint: \(InputFile.describe(path)): ok, no findings (\(size) of \(linter.sizeLimit) bytes)" + (lookup.map { "; \($0)" } ?? ""))
            } else if let lookup {
                printError("richpush lint: \(InputFile.describe(path)): \(lookup)")
            }
        }
        guard args.flag("fix") else {
            for finding in findings { try StandardOutput.print(line(finding, fixed: false, json: args.flag("json"))) }
            // --probe (issue 19, LintCommand+Probe.swift): fetch each media URL as the extension would.
            let attaches = args.flag("probe") ? try await probeMedia(data, keyPaths: linter.mediaKeyPaths, args: args) : true
            return findings.contains { $0.severity == .error } || !attaches ? 1 : 0
        }
        guard let parsed = try? RichPushJSONValue.parseStrictly(data) else {
            for finding in findings { printError(line(finding, fixed: false, json: args.flag("json"))) }
            return 1
        }
        let fixedPayload = linter.fix(parsed)
        let remaining = linter.lint(fixedPayload)
        let remainingKeys = Set(remaining.map { "\($0.code)|\($0.keyPath ?? "")" })
        for finding in findings {
            let fixed = !remainingKeys.contains("\(finding.code)|\(finding.keyPath ?? "")")
            printError(line(finding, fixed: fixed, json: args.flag("json")))
        }
        let originalKeys = Set(findings.map { "\($0.code)|\($0.keyPath ?? "")" })
        for finding in remaining where !originalKeys.contains("\(finding.code)|\(finding.keyPath ?? "")") {
            printError(line(finding, fixed: false, json: args.flag("json")))
        }
        var out = fixedPayload.jsonData(sortedKeys: true)
        out.append(0x0A)
        if let output = args.value("output") {
            try FileProblem.write(out, to: output, what: "the fixed payload", option: "--output")
        } else {
            try StandardOutput.write(out)
        }
        return remaining.contains { $0.severity == .error } ? 1 : 0
    }

    static func line(_ finding: RichPushLintFinding, fixed: Bool, json: Bool) -> String {
        if json {
            var o: [String: RichPushJSONValue] = [
                "severity": .string(finding.severity.rawValue), "code": .string(finding.code.rawValue),
                "message": .string(finding.message), "fixed": .bool(fixed),
            ]
            o["key"] = finding.keyPath.map(RichPushJSONValue.string) ?? .null
            return String(decoding: RichPushJSONValue.object(o).jsonData(), as: UTF8.self)
        }
        // Key paths and messages quote the payload: nothing in them may drive the terminal.
        return TerminalText.visible(
            fixed ? "fixed \(finding.code) \(finding.keyPath ?? ""): \(finding.message)" : finding.description(fixableWith: SettingNames.lintFix))
    }

    static func readInput(_ path: String) async throws -> Data {
        try await InputFile.read(path)
    }

    static func printError(_ s: String) {
        FileHandle.standardError.write(Data((s + "\n").utf8))
    }
}
