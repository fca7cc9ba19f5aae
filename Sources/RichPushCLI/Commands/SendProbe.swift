import Foundation
import RichPushCore
import RichPushDoctor
import RichPushMedia

/// `richpush send --probe [--on-media-error stop|send-text]`: each distinct media URL the
/// extension would use is fetched as the extension would fetch it (`MediaProbe`) before the first
/// token is sent (issue 19).
enum SendProbe {
    /// The options `--probe` adds to `send`.
    static let options: [ParsedArguments.Option] =
        [
            .flag(
                "probe",
                help:
                    "Before any token: fetch each media URL as the extension would (richpush media probe);\none line per URL on stderr, as lint --probe; a refusal stops the send (exit 1)."
            ),
            .value(
                "on-media-error", "stop|send-text",
                help:
                    "With --probe, when the extension would not attach the media: stop (default),\nor send-text: remove the media key and send the push without it."
            ),
        ] + MediaProbeOptions.options

    /// Probes the payload's media and says what it found on standard error.
    ///
    /// - Parameters:
    ///   - payload: the payload about to be sent.
    ///   - args: `send`'s arguments (`--media-key`, `--on-media-error`, the probe options).
    /// - Returns: the payload to send: as given, or without its media key (`send-text`).
    /// - Throws: `UsageError` for a bad option; `RichPushError` `media_refused` when a URL would
    ///   not be attached and `--on-media-error` is not `send-text`.
    static func run(_ payload: Data, args: ParsedArguments) async throws -> Data {
        guard args.flag("probe") else {
            throw UsageError(command: "send", message: "'--on-media-error' says what to do when --probe refuses media: add '--probe'")
        }
        let sendsText: Bool
        switch args.value("on-media-error") ?? "stop" {
        case "stop": sendsText = false
        case "send-text": sendsText = true
        case let other:
            throw UsageError(command: "send", message: "'--on-media-error \(other)' must be stop or send-text")
        }
        let settings = try MediaProbeOptions.settings(args, command: "send")
        guard let root = try? RichPushJSONValue.parseStrictly(payload) else { return payload }
        let keys = args.values("media-key").map { RichPushPayloadKeyPath($0) }
        let media = RichPushPayloadLookup.media(in: root, keyPaths: keys + RichPushPayloadKeyPath.defaultMediaKeyPaths.filter { !keys.contains($0) })
        guard let path = media.path else {
            LintCommand.printError("richpush send: --probe: the payload names no media URL the extension would use; nothing to probe")
            return payload
        }
        var seen: Set<String> = []
        var refused: [MediaProbeResult] = []
        for url in media.urls where seen.insert(url).inserted {
            let result = await MediaProbe(settings: settings).probe(url)
            let head = result.reason?.rawValue ?? "ok"
            LintCommand.printError("\(head) \(path.description) \(result.line.dropFirst(head.count + 1))")
            if result.reason != nil { refused.append(result) }
        }
        guard let first = refused.first, let reason = first.reason else { return payload }
        guard sendsText else {
            throw RichPushError(
                code: RichPushError.Code(rawValue: "media_refused"),
                message:
                    "nothing was sent: the extension would not attach \(first.url) (\(reason.rawValue): \(first.message)); \(MediaChecks.fix(for: reason, names: SettingNames.doctor)), or pass --on-media-error send-text to send the push without it"
            )
        }
        LintCommand.printError(
            "richpush send: --on-media-error send-text: removed \(path.description) (\(refused.count) media URL\(refused.count == 1 ? "" : "s") the extension would not attach); the push goes without media"
        )
        return root.removing(path).jsonData(sortedKeys: true)
    }
}
