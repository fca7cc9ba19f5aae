import CVips
import Foundation
import RichPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The worker side of `MediaWorkerPool`: a process that converts media with `MediaOptimizer`
/// (libvips) one request at a time, so that a decoder that aborts, runs away with memory or
/// never ends takes only this process down.
///
/// A program becomes a worker when its first argument is `MediaWorker.argument` (`richpush`
/// does this: `richpush __media-worker …`, not listed in its help); it then calls `main` with
/// the remaining arguments and exits with what it returns. Before reading any request the worker
/// bounds itself: address space (`RLIMIT_AS`, `--memory-bytes`), no core files, at most 64 open
/// files, no file written over `--file-bytes`, no new privileges; and before each conversion it
/// allows itself the request's CPU seconds (`RLIMIT_CPU`: past them the kernel ends it with
/// SIGXCPU). libvips runs `--threads` threads (the pool divides the cores among its workers).
/// Standard output carries
/// only replies: anything a library prints goes to standard error.
public enum MediaWorker {
    /// The hidden first argument that makes `richpush` a media worker.
    public static let argument = "__media-worker"

    /// At most this many files open at once in a worker: the input, the output, libvips' and the
    /// pipes (64).
    static let openFiles = 64

    /// The worker's settings, from its arguments.
    struct Options: Equatable {
        /// `RLIMIT_AS` in bytes.
        var memoryBytes = MediaWorkerPool.Settings().memoryBytes
        /// `RLIMIT_FSIZE` in bytes.
        var fileBytes = RichPushMediaKind.largestMaximumBytes + 1_048_576
        /// ImageMagick's loader (BMP) open.
        var allowsImageMagick = false
        /// librsvg's loader (SVG) open.
        var allowsSVG = false
        /// libvips' threads.
        var threads = 1

        /// The arguments that make these options (after `MediaWorker.argument`).
        var arguments: [String] {
            ["--memory-bytes", String(memoryBytes), "--file-bytes", String(fileBytes), "--threads", String(threads)]
                + (allowsImageMagick ? ["--allow-imagemagick"] : [])
                + (allowsSVG ? ["--allow-svg"] : [])
        }

        /// Reads the arguments, or `nil` for one it does not know.
        init?(_ arguments: [String]) {
            var rest = arguments[...]
            while let name = rest.popFirst() {
                switch name {
                case "--allow-imagemagick": allowsImageMagick = true
                case "--allow-svg": allowsSVG = true
                case "--memory-bytes", "--file-bytes", "--threads":
                    guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else { return nil }
                    switch name {
                    case "--memory-bytes": memoryBytes = value
                    case "--file-bytes": fileBytes = value
                    default: threads = min(value, 64)
                    }
                default: return nil
                }
            }
        }

        init() {}
    }

    /// Runs the worker until its standard input ends.
    ///
    /// - Parameter arguments: the arguments after `MediaWorker.argument`: `--memory-bytes N`,
    ///   `--file-bytes N`, `--threads N`, `--allow-imagemagick`, `--allow-svg`.
    /// - Returns: the exit status: 0 at the end of input, 64 for unknown arguments, 70 when it
    ///   cannot bound itself or talk to its pool.
    public static func main(_ arguments: [String]) -> Int32 {
        guard let options = Options(arguments) else {
            FileHandle.standardError.write(Data("richpush: \(argument) is started by richpush serve and richpush media, not by hand\n".utf8))
            return 64
        }
        // Replies go to a private copy of standard output; the descriptor 1 libraries print to
        // becomes standard error.
        let replies = dup(1)
        guard replies >= 0, dup2(2, 1) >= 0 else { return 70 }
        guard
            richpush_worker_bound(UInt64(options.memoryBytes), UInt64(options.fileBytes), UInt64(openFiles)) == 0
        else {
            FileHandle.standardError.write(Data("richpush media worker: cannot set its resource limits (errno \(errno))\n".utf8))
            return 70
        }
        var started: Swift.Result<VipsLibrary.Policy, MediaOptimizeError>
        do throws(MediaOptimizeError) {
            started = .success(try VipsLibrary.start(allowsImageMagick: options.allowsImageMagick, allowsSVG: options.allowsSVG, concurrency: options.threads))
        } catch {
            started = .failure(error)
        }
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        while let header = MediaWorkerMessage.readExactly(4, from: 0) {
            let length = header.reduce(0) { $0 << 8 | Int($1) }
            guard length <= MediaWorkerMessage.maximumFrameBytes, let body = MediaWorkerMessage.readExactly(length, from: 0),
                let request = try? decoder.decode(MediaWorkerMessage.Request.self, from: body)
            else { return 70 }
            let outcome: Swift.Result<MediaOptimizeResult, MediaOptimizeError>
            switch started {
            case .failure(let error):
                outcome = .failure(error)
            case .success:
                _ = richpush_worker_cpu_budget(UInt64(max(1, request.cpuSeconds)))
                let settings = request.settings(allowsImageMagick: options.allowsImageMagick, allowsSVG: options.allowsSVG)
                do throws(MediaOptimizeError) {
                    outcome = .success(
                        try MediaOptimizer(settings: settings).optimize(URL(fileURLWithPath: request.input), to: URL(fileURLWithPath: request.output)))
                } catch {
                    outcome = .failure(error)
                }
            }
            let reply = MediaWorkerMessage.Reply(outcome, peakRSSBytes: Int(richpush_worker_peak_rss()))
            guard let payload = try? encoder.encode(reply), MediaWorkerMessage.writeAll(MediaWorkerMessage.frame(payload), to: replies) else {
                return 70
            }
        }
        return 0
    }
}
