import Foundation
import RichPushCore
import RichPushMedia

/// `richpush lint --probe`: fetches every media URL of the payload as the extension would (issue 19).
extension LintCommand {
    /// The options `--probe` adds to `lint`.
    static let probeOptions: [ParsedArguments.Option] =
        [
            .flag(
                "probe",
                help:
                    "Also fetch each media URL as the extension would (richpush media probe):\none line per URL, \"ok KEY URL: …\" or \"REASON KEY URL: …\"; a refusal is an error."
            )
        ] + MediaProbeOptions.options

    /// Probes each distinct media URL at `keyPaths` and prints one line per URL.
    /// - Returns: `true` when the extension would attach every one.
    static func probeMedia(_ data: Data, keyPaths: [RichPushPayloadKeyPath], args: ParsedArguments) async throws -> Bool {
        let settings = try MediaProbeOptions.settings(args, command: "lint")
        guard let root = try? RichPushJSONValue.parseStrictly(data) else { return false }
        var seen: Set<String> = []
        var allAttach = true
        for path in keyPaths {
            guard let url = path.string(in: root), !url.isEmpty, seen.insert(url).inserted else { continue }
            let result = await MediaProbe(settings: settings).probe(url)
            if result.reason != nil { allAttach = false }
            if args.flag("json") {
                var object: [String: RichPushJSONValue] = ["key": .string(path.description)]
                if case .object(let fields) = result.json { object.merge(fields) { a, _ in a } }
                try StandardOutput.print(String(decoding: RichPushJSONValue.object(object).jsonData(sortedKeys: true), as: UTF8.self))
            } else {
                let head = result.reason?.rawValue ?? "ok"
                try StandardOutput.print("\(head) \(path.description) \(result.line.dropFirst(head.count + 1))")
            }
        }
        return allAttach
    }
}
