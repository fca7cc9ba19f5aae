import Foundation
import RichPushTestSupport

/// Runs the real `richpush simulate` (the extension pipeline in the Linux host) on a payload
/// naming one media URL.
enum Simulation {
    /// What simulate delivered.
    struct Outcome {
        var outcome: String
        var reason: String?
        /// The attachment files moved into `--out`.
        var attachments: [URL]
        var raw: String
    }

    /// Simulates a payload whose `media-url` is `url`.
    /// - Parameters:
    ///   - url: the media URL.
    ///   - allowHTTP: pass `--allow-http-host 127.0.0.1`.
    ///   - deadline: the pipeline's deadline in seconds.
    static func run(_ url: String, allowHTTP: Bool = true, deadline: Double = 25) async throws -> Outcome {
        let folder = try Fixtures.temporaryDirectory("richpush-media-simulate")
        defer { try? FileManager.default.removeItem(at: folder) }
        let payload: [String: Any] = ["aps": ["alert": ["title": "Sale", "body": "now"], "mutable-content": 1], "media-url": url]
        let file = folder.appendingPathComponent("payload.json")
        try JSONSerialization.data(withJSONObject: payload).write(to: file)
        var arguments = [
            "simulate", file.path, "--json", "--out", folder.appendingPathComponent("out").path, "--deadline", String(deadline),
            "--budget", String(deadline + 5),
        ]
        if allowHTTP { arguments += ["--allow-http-host", "127.0.0.1"] }
        let run = try await ChildProcess(Fixtures.richpushBinary.path, arguments).run(timeout: deadline + 60)
        guard run.status == 0, let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] else {
            throw TestSupportError("simulate exited \(run.status): \(run.stdout) \(run.stderr)")
        }
        let moved = ((object["host"] as? [String: Any])?["attachmentsMovedTo"] as? [String] ?? []).map { URL(fileURLWithPath: $0) }
        // Keep the attachments readable after `folder` goes: copy them to a fresh place.
        let keep = try Fixtures.temporaryDirectory("richpush-media-attached")
        var kept: [URL] = []
        for file in moved {
            let target = keep.appendingPathComponent(file.lastPathComponent)
            try FileManager.default.copyItem(at: file, to: target)
            kept.append(target)
        }
        return Outcome(outcome: object["outcome"] as? String ?? "", reason: object["reason"] as? String, attachments: kept, raw: run.stdout)
    }
}
