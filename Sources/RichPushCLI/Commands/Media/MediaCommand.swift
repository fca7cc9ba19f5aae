import Foundation
import RichPushCore
import RichPushExtension
import RichPushMedia

/// `richpush media probe URL [--json]` and `richpush media optimize FILE|URL --output FILE`.
enum MediaCommand {
    static let spec = CommandSpec(
        name: "media",
        summary: "Probe a media URL as the extension would fetch it, or make a push-optimised JPEG copy",
        usage:
            "richpush media probe URL [--json] [options]\n       richpush media optimize FILE|URL --output FILE [--max-bytes N] [--max-pixels N] [--allow-svg] [--json] [options]",
        discussion: """
            probe fetches URL once with the extension's own rules and code (URL normalisation,
            https/ATS, 5 redirects, magic bytes against Apple's attachment table, Apple's size
            limits, the structure and pixel-bound checks, the time budget) and prints
            "ok URL: …" or "REASON URL: message"; --json prints {reason (null when the
            extension would attach it), message, type, format, bytes, width, height, final_url,
            http_status, redirects, ttfb_ms, total_ms}. Exit 0 when the extension would
            attach it, 1 when not (the reason), 64 on a usage error.

            optimize makes a push-ready copy with libvips: WebP (first frame), HEIC/HEIF,
            AVIF, TIFF, JPEG XL, SVG (with --allow-svg), BMP (with --allow-imagemagick), and any image over
            --max-bytes (default 307200, 300 KB, article 004) or over --max-pixels on the long
            side (default 2048) → JPEG (sRGB, EXIF orientation applied, metadata stripped)
            within the byte budget; JPEG, PNG and GIF within both budgets are copied as they
            are; video and audio are never transcoded (copied when the extension would attach
            them). The conversion runs in a worker process (this binary) bounded in memory
            (--media-worker-memory) and time (--media-timeout): a decoder that crashes or runs
            away is a refusal (corrupt_media, too_large, media_timeout), never a crash of this
            command. Exit 0 with the copy written, 1 with the reason when none can be made.

            No server-side request forgery: loopback, private (10/8, 172.16/12, 192.168/16),
            link-local (169.254/16: cloud metadata), unique-local and other non-public
            addresses are refused (reason blocked_address) on every redirect hop and on the
            address actually connected to, unless --media-allow-host names the host.

            Examples:
              richpush media probe https://cdn.example.com/p/123.webp --json
              richpush media optimize https://cdn.example.com/p/123.webp --output 123.jpg
            """,
        options: MediaProbeOptions.options + [
            .flag("json", help: "Print one JSON object."),
            .value("output", "FILE", help: "optimize: where the copy goes (replaced)."),
            .value("max-bytes", "N", help: "optimize: byte budget of the copy (default 307200, 300 KB)."),
            .value("max-pixels", "N", help: "optimize: longest side of the copy in pixels (default 2048)."),
            .value(
                "max-input-pixels", "N",
                help: "optimize: refuse inputs declaring more pixels than N before\ndecoding (default 100000000; decompression bombs)."),
            .value(
                "max-decode-bytes", "N",
                help:
                    "optimize: refuse inputs a decoder holds whole (progressive JPEG,\ninterlaced PNG, GIF, HEIC…) when that takes more than N bytes\n(default 400000000)."
            ),
            .flag("allow-imagemagick", help: "optimize: open ImageMagick's loader for BMP (untrusted;\noff by default)."),
        ] + MediaWorkerOptions.options(serve: false),
        run: run
    )

    @Sendable static func run(_ args: ParsedArguments) async throws -> Int32 {
        let command = "media"
        guard let sub = args.positionals.first else {
            throw UsageError(command: command, message: "give a subcommand: probe URL, or optimize FILE|URL --output FILE")
        }
        guard args.positionals.count == 2 else {
            throw UsageError(command: command, message: "'media \(sub)' takes exactly one URL or file, got \(args.positionals.count - 1)")
        }
        let target = args.positionals[1]
        let settings = try MediaProbeOptions.settings(args, command: command)
        switch sub {
        case "probe":
            for option in ["output", "max-bytes", "max-pixels", "max-input-pixels", "max-decode-bytes", "media-timeout", "media-worker-memory"]
            where args.value(option) != nil {
                throw UsageError(command: command, message: "--\(option) belongs to 'media optimize', not 'media probe'")
            }
            let result = await MediaProbe(settings: settings).probe(target)
            try StandardOutput.print(args.flag("json") ? String(decoding: result.json.jsonData(sortedKeys: true), as: UTF8.self) : result.line)
            return result.reason == nil ? 0 : 1
        case "optimize":
            return try await optimize(target, args: args, settings: settings)
        default:
            throw UsageError(command: command, message: "unknown subcommand '\(sub)': use probe or optimize")
        }
    }

    private static func optimize(_ target: String, args: ParsedArguments, settings: MediaProbe.Settings) async throws -> Int32 {
        let command = "media"
        guard let output = args.value("output") else {
            throw UsageError(command: command, message: "'media optimize' needs --output FILE (where the copy goes)")
        }
        var budgets = MediaOptimizer.Settings()
        budgets.maximumBytes = try args.integer("max-bytes", in: 1024...50_000_000) ?? budgets.maximumBytes
        budgets.maximumSide = try args.integer("max-pixels", in: 64...16384) ?? budgets.maximumSide
        budgets.maximumInputPixels = try args.integer("max-input-pixels", in: 1...1_000_000_000) ?? budgets.maximumInputPixels
        budgets.maximumDecodeBytes = try args.integer("max-decode-bytes", in: 1_000_000...Int(Int64.max / 2)) ?? budgets.maximumDecodeBytes
        budgets.allowsImageMagick = args.flag("allow-imagemagick")
        var workers = MediaWorkerPool.Settings()
        workers.workers = 1
        try MediaWorkerOptions.apply(args, to: &workers, optimizer: &budgets)
        let json = args.flag("json")
        var input = URL(fileURLWithPath: target)
        var scratch: URL?
        defer { if let scratch { try? FileManager.default.removeItem(at: scratch) } }
        let lower = target.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-optimize-\(UUID().uuidString.lowercased())")
            scratch = folder
            // The original may be over Apple's limits (that is why it is optimised): up to 50 MB.
            let fetched = await MediaProbe(settings: settings).fetchOriginal(target, into: folder, byteLimit: RichPushMediaKind.largestMaximumBytes)
            guard let media = fetched.media else {
                try report(reason: fetched.result.reason?.rawValue ?? "network", message: fetched.result.message, json: json)
                return 1
            }
            input = media.file
        } else if !FileManager.default.isReadableFile(atPath: target) {
            throw UsageError(command: command, message: "cannot read '\(target)': give a readable file or an http(s) URL")
        }
        // In a worker process (this binary, `richpush __media-worker`): a decoder that aborts or
        // runs away ends the worker, and this command reports the reason.
        let pool = MediaWorkerPool(optimizer: budgets, settings: workers)
        defer { pool.shutdown() }
        let made: Result<MediaOptimizeResult, MediaOptimizeError>
        do throws(MediaOptimizeError) {
            made = .success(try await pool.optimize(input, to: URL(fileURLWithPath: output)).result)
        } catch {
            made = .failure(error)
        }
        switch made {
        case .success(let result):
            try StandardOutput.print(json ? String(decoding: result.json.jsonData(sortedKeys: true), as: UTF8.self) : result.line)
            return 0
        case .failure(let error):
            try report(reason: error.code.rawValue, message: SettingNames.namingOptimizerSetting(error), json: json)
            return 1
        }
    }

    private static func report(reason: String, message: String, json: Bool) throws {
        if json {
            let o: RichPushJSONValue = .object(["action": .null, "reason": .string(reason), "message": .string(message)])
            try StandardOutput.print(String(decoding: o.jsonData(sortedKeys: true), as: UTF8.self))
        } else {
            FileHandle.standardError.write(Data("richpush media optimize: \(reason): \(message)\n".utf8))
        }
    }
}
