import Foundation
import RichPushMedia

/// The media workers' options, shared by `richpush serve` (the media edge's conversions) and
/// `richpush media optimize`: `--media-workers N` (serve), `--media-timeout SECONDS`,
/// `--media-worker-memory BYTES` and `--allow-svg`.
enum MediaWorkerOptions {
    /// The options; `serve` adds `--media-workers`.
    static func options(serve: Bool) -> [ParsedArguments.Option] {
        (serve
            ? [
                .value(
                    "media-workers", "N",
                    help: "Media conversions at once, each in its own worker process\n(default 2; 1…64). Each may use up to --media-worker-memory.")
            ] : [])
            + [
                .value(
                    "media-timeout", "SECONDS",
                    help: "Time (and CPU seconds) a conversion may take before its worker\nis stopped: media_timeout (default 20; 1…300)."),
                .value(
                    "media-worker-memory", "BYTES",
                    help: "Address space of each media worker (RLIMIT_AS; default\n1073741824, 1 GiB; at least 268435456)."),
                .flag(
                    "allow-svg",
                    help:
                        "Rasterise SVG (librsvg). Off by default: librsvg 2.54 aborts on\nsome files and has no time bound of its own; the worker\nprocesses contain both."
                ),
            ]
    }

    /// Applies the options.
    ///
    /// - Parameters:
    ///   - args: the parsed arguments.
    ///   - workers: the pool's bounds to change.
    ///   - optimizer: the optimiser's settings to change (`--allow-svg`).
    /// - Throws: `UsageError` for a value out of range.
    static func apply(_ args: ParsedArguments, to workers: inout MediaWorkerPool.Settings, optimizer: inout MediaOptimizer.Settings) throws {
        if let n = try args.integer("media-workers", in: 1...64) { workers.workers = n }
        if let seconds = try args.seconds("media-timeout", in: 1...300) { workers.timeout = .milliseconds(Int(seconds * 1000)) }
        if let bytes = try args.integer("media-worker-memory", in: 268_435_456...Int(Int64.max / 2)) { workers.memoryBytes = bytes }
        if args.flag("allow-svg") { optimizer.allowsSVG = true }
    }
}
