import Foundation
@_spi(RichPushInternal) import RichPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `MediaOptimizer` in worker processes, for hostile input: a decoder that aborts (librsvg 2.54
/// panics on some SVG filters), eats memory or never ends takes one worker down, never the
/// caller, and its conversion is refused with the reason.
///
/// - At most `workers` conversions run at once, each in its own process (`MediaWorker`: the
///   `richpush` binary started as `richpush __media-worker`); the next waits for a free one, at
///   most `queueTimeout`.
/// - Each worker is bounded: address space (`RLIMIT_AS`, `memoryBytes`), CPU time per
///   conversion (`RLIMIT_CPU`, `timeout` in seconds) and wall-clock time per conversion
///   (`timeout`, then SIGKILL).
/// - A worker that dies is replaced at the next conversion; its conversion is refused:
///   `media_timeout` past the time, `too_large` when it ran out of memory, `corrupt_media`
///   otherwise (the signal and the decoder's last words in the message).
/// - A worker is retired after `conversionsPerWorker` conversions (libvips' and the allocator's
///   memory does not grow without end).
///
/// `conversion.result.elapsedMs` is the work in the worker; `conversion.queueMs` the wait for
/// a worker (and its start).
public final class MediaWorkerPool: Sendable {
    /// The pool's bounds.
    public struct Settings: Sendable {
        /// The worker program (an absolute path) and the arguments that make it a worker; by
        /// default `/proc/self/exe __media-worker` (this very binary, which must be `richpush`
        /// or another program that calls `MediaWorker.main`).
        public var command: [String] = ["/proc/self/exe", MediaWorker.argument]
        /// Conversions at once (worker processes): 2, the development machine's cores; each may
        /// take up to the memory below.
        public var workers = 2
        /// Each worker's address space (`RLIMIT_AS`): 1 GiB. A conversion within the
        /// optimiser's bounds peaks under 450 MB resident; the rest is the libraries' mappings
        /// and thread stacks, which count against it too (BENCHMARKS.md, "Media worker memory").
        public var memoryBytes = 1 << 30
        /// Wall-clock time (and CPU seconds) a conversion may take: 20 s (a 12 MB JPEG takes
        /// 3 s on a loaded 2-core machine; the device's extension has about 30 s for the whole
        /// fetch, and the send waits for this).
        public var timeout: Duration = .seconds(20)
        /// How long a conversion may wait for a free worker: 30 s; then `media_timeout`.
        public var queueTimeout: Duration = .seconds(30)
        /// Conversions a worker makes before it is replaced: 500.
        public var conversionsPerWorker = 500
        /// libvips' threads in each worker; `nil`: the cores divided among the workers (at
        /// least 1), so that the pool uses the machine and no more. A conversion's CPU bound is
        /// `timeout` times this.
        public var threadsPerWorker: Int?

        /// The threads each worker runs.
        var threads: Int {
            threadsPerWorker.map { max(1, $0) } ?? max(1, ProcessInfo.processInfo.activeProcessorCount / max(1, workers))
        }

        /// Default bounds.
        public init() {}
    }

    /// One conversion.
    public struct Conversion: Sendable, Equatable {
        /// What the optimiser made (`elapsedMs`: the work, in the worker).
        public var result: MediaOptimizeResult
        /// The wait for a free worker (and for its start), in ms.
        public var queueMs: Int
        /// The worker's peak resident memory so far, in bytes.
        public var workerPeakBytes: Int
    }

    /// Counts since the pool was made (for `/metrics`).
    public struct Statistics: Sendable, Equatable {
        /// Conversions answered by a worker (a copy, or the optimiser's refusal).
        public var answered = 0
        /// Conversions stopped past their time (SIGKILL or SIGXCPU).
        public var timedOut = 0
        /// Workers that died in a conversion (a signal, or out of memory).
        public var died = 0
        /// Conversions that waited past `queueTimeout` for a worker.
        public var queueTimeouts = 0
        /// Workers started.
        public var started = 0
        /// The highest peak resident memory a worker reported, in bytes.
        public var peakBytes = 0
    }

    private struct State {
        var idle: [MediaWorkerProcess] = []
        var busy = 0
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextWaiter: UInt64 = 0
        var expired: Set<UInt64> = []
        var live: Set<Int32> = []
        var statistics = Statistics()
        var closed = false
    }

    /// The optimiser's budgets and loader policy (the policy is each worker's, fixed at its start).
    public let optimizer: MediaOptimizer.Settings
    /// The pool's bounds.
    public let settings: Settings
    private let state = Locked(State())
    private let environment: [String]
    private let jobs = DispatchQueue(label: "richpush.media.workers", attributes: .concurrent)

    /// Makes a pool (no worker starts before the first conversion, or `prepare()`).
    ///
    /// - Parameters:
    ///   - optimizer: the optimiser's budgets and loader policy.
    ///   - settings: the pool's bounds.
    public init(optimizer: MediaOptimizer.Settings = MediaOptimizer.Settings(), settings: Settings = Settings()) {
        self.optimizer = optimizer
        self.settings = settings
        // The worker gets none of the server's environment (tokens, database URLs): a few
        // allocator and loader settings, and where temporary files go.
        let temporary = FileManager.default.temporaryDirectory.path
        environment = [
            "MALLOC_ARENA_MAX=2", "SWIFT_BACKTRACE=enable=no", "VIPS_CONCURRENCY=\(settings.threads)", "VIPS_BLOCK_UNTRUSTED=1", "PATH=/nonexistent",
            "LANG=C.UTF-8",
            "TMPDIR=\(temporary)",
        ]
    }

    deinit {
        shutdown()
    }

    /// What the pool has done so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// The process ids of the workers alive now (idle or converting), for monitoring.
    public var processIdentifiers: [Int32] { state.withLock { $0.live.sorted() } }

    /// Starts the workers now (a server calls it at start, so the first push does not wait
    /// for a worker to start).
    ///
    /// - Throws: `MediaOptimizeError` `decoder` when a worker cannot be started.
    public func prepare() throws(MediaOptimizeError) {
        let missing = state.withLock { max(0, settings.workers - $0.idle.count - $0.busy) }
        var made: [MediaWorkerProcess] = []
        for _ in 0..<missing { made.append(try spawn()) }
        state.withLock { $0.idle += made }
    }

    /// Converts `input` into `output` in a worker.
    ///
    /// - Parameters:
    ///   - input: the file to convert.
    ///   - output: where the copy goes (replaced).
    /// - Returns: what was made, the wait and the worker's memory.
    /// - Throws: `MediaOptimizeError`: the optimiser's refusal; `media_timeout` past the time or
    ///   the queue's; `too_large` when the worker ran out of memory; `corrupt_media` when it
    ///   died on the file; `decoder` when no worker could start.
    public func optimize(_ input: URL, to output: URL) async throws(MediaOptimizeError) -> Conversion {
        let queued = ContinuousClock.now
        guard await acquire() else {
            state.withLock { $0.statistics.queueTimeouts += 1 }
            throw MediaOptimizeError(
                .mediaTimeout,
                "every media worker (\(settings.workers)) stayed busy for \(Self.seconds(settings.queueTimeout)) s; the conversion did not start: try again, or raise the number of workers",
                setting: "workers")
        }
        let ending: Result<(MediaWorkerMessage.Reply, Int), MediaOptimizeError> = await withCheckedContinuation { continuation in
            jobs.async {
                continuation.resume(returning: self.run(input, to: output, queued: queued))
            }
        }
        release()
        switch ending {
        case .failure(let error):
            throw error
        case .success(let (reply, queueMs)):
            switch reply.outcome {
            case .success(let result)?:
                return Conversion(result: result, queueMs: queueMs, workerPeakBytes: reply.peakRSSBytes)
            case .failure(let error)?:
                throw error
            case nil:
                throw MediaOptimizeError(.decoder, "the media worker answered a result that cannot be read")
            }
        }
    }

    /// Stops every idle worker; conversions in flight finish, their workers end after them.
    public func shutdown() {
        let idle = state.withLock { state -> [MediaWorkerProcess] in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        for worker in idle { worker.stop() }
        state.withLock { state in
            for worker in idle { state.live.remove(worker.pid) }
        }
    }

    /// One conversion on a worker (on `jobs`: it blocks until the reply or the deadline).
    private func run(_ input: URL, to output: URL, queued: ContinuousClock.Instant) -> Result<(MediaWorkerMessage.Reply, Int), MediaOptimizeError> {
        let worker: MediaWorkerProcess
        if let idle = state.withLock({ $0.idle.popLast() }) {
            worker = idle
        } else {
            do throws(MediaOptimizeError) {
                worker = try spawn()
            } catch {
                return .failure(error)
            }
        }
        let started = ContinuousClock.now
        let queueMs = MediaProbe.milliseconds(started - queued)
        let timeoutSeconds = Self.seconds(settings.timeout)
        let request = MediaWorkerMessage.Request(
            input: input.path, output: output.path, maximumBytes: optimizer.maximumBytes, maximumSide: optimizer.maximumSide,
            maximumInputPixels: optimizer.maximumInputPixels, maximumDecodeBytes: optimizer.maximumDecodeBytes,
            cpuSeconds: max(1, Int(timeoutSeconds.rounded(.up)) * settings.threads))
        let ending = worker.run(request, deadline: started + settings.timeout)
        if worker.ended { state.withLock { _ = $0.live.remove(worker.pid) } }
        switch ending {
        case .reply(var reply):
            // The decoder ran out of the worker's address space and said so (libjpeg's
            // "Insufficient memory", a failed mmap): too large for this worker, which is replaced
            // (its heap may be left in pieces).
            let outOfMemory = reply.error.map { Self.isMemoryFailure($0.message) } ?? false
            if outOfMemory, let message = reply.error?.message {
                reply.error = .init(
                    code: MediaOptimizeError.Code.tooLarge.rawValue,
                    message:
                        "decoding this file needed more than the media worker's \(settings.memoryBytes / 1_048_576) MiB of address space (\(message)); send a smaller image, or raise the bound",
                    setting: "memoryBytes")
            }
            let keep = worker.answered < settings.conversionsPerWorker && !outOfMemory
            let retired = state.withLock { state -> Bool in
                state.statistics.answered += 1
                state.statistics.peakBytes = max(state.statistics.peakBytes, reply.peakRSSBytes)
                guard keep, !state.closed else { return true }
                state.idle.append(worker)
                return false
            }
            if retired {
                worker.stop()
                state.withLock { _ = $0.live.remove(worker.pid) }
            }
            return .success((reply, queueMs))
        case .timedOut:
            state.withLock { $0.statistics.timedOut += 1 }
            return .failure(
                MediaOptimizeError(
                    .mediaTimeout,
                    "the conversion ran past its \(Self.format(timeoutSeconds)) s and was stopped (a file this slow to decode is hostile or far too complex); send a simpler file",
                    setting: "timeout"))
        case .died(let status, let errors):
            let (error, timedOut) = death(status: status, errors: errors, seconds: timeoutSeconds)
            state.withLock {
                if timedOut { $0.statistics.timedOut += 1 } else { $0.statistics.died += 1 }
            }
            return .failure(error)
        case .broken(let why):
            state.withLock { $0.statistics.died += 1 }
            return .failure(MediaOptimizeError(.decoder, why))
        }
    }

    /// The refusal for a worker that ended without answering, and whether it ran out of time.
    func death(status: Int32, errors: String, seconds: Double) -> (MediaOptimizeError, timedOut: Bool) {
        let said = Self.lastWords(errors)
        let words = said.isEmpty ? "" : ": \(said)"
        guard let signal = MediaWorkerProcess.signal(in: status) else {
            return (
                MediaOptimizeError(
                    .corruptMedia, "the decoder stopped on this file (the media worker exited with status \(MediaWorkerProcess.exitCode(in: status))\(words))"),
                false
            )
        }
        if signal == SIGXCPU {
            return (
                MediaOptimizeError(
                    .mediaTimeout,
                    "the conversion used more than \(Self.format(seconds * Double(settings.threads))) s of CPU and was stopped; send a simpler file",
                    setting: "timeout"),
                true
            )
        }
        if Self.isMemoryFailure(errors) {
            return (
                MediaOptimizeError(
                    .tooLarge,
                    "decoding this file needed more than the media worker's \(settings.memoryBytes / 1_048_576) MiB of address space, and the worker was stopped (signal \(signal)\(words)); send a smaller image, or raise the bound",
                    setting: "memoryBytes"),
                false
            )
        }
        return (
            MediaOptimizeError(
                .corruptMedia,
                "the decoder crashed on this file (the media worker died of signal \(signal), \(Self.signalName(signal))\(words)); encode the file again as JPEG or PNG"
            ),
            false
        )
    }

    private func spawn() throws(MediaOptimizeError) -> MediaWorkerProcess {
        guard let executable = settings.command.first else {
            throw MediaOptimizeError(.decoder, "no media worker program is set (MediaWorkerPool.Settings.command)")
        }
        var options = MediaWorker.Options()
        options.memoryBytes = settings.memoryBytes
        options.allowsImageMagick = optimizer.allowsImageMagick
        options.allowsSVG = optimizer.allowsSVG
        options.threads = settings.threads
        let worker = try MediaWorkerProcess.spawn(
            executable: executable, arguments: Array(settings.command.dropFirst()) + options.arguments, environment: environment)
        state.withLock {
            $0.statistics.started += 1
            $0.live.insert(worker.pid)
        }
        return worker
    }

    /// Waits for a free worker slot; `false` past `queueTimeout`.
    private func acquire() async -> Bool {
        let id = state.withLock { state -> UInt64? in
            if state.busy < max(1, settings.workers), state.waiting.isEmpty {
                state.busy += 1
                return nil
            }
            state.nextWaiter += 1
            return state.nextWaiter
        }
        guard let id else { return true }
        let timeout = settings.queueTimeout
        let expiry = Task {
            try? await Task.sleep(for: timeout)
            let continuation = self.state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else {
                    state.expired.insert(id)
                    return nil
                }
                return state.waiting.remove(at: index).continuation
            }
            continuation?.resume(returning: false)
        }
        let granted = await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool? in
                if state.expired.remove(id) != nil { return false }
                if state.busy < max(1, settings.workers), state.waiting.isEmpty {
                    state.busy += 1
                    return true
                }
                state.waiting.append((id, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
        expiry.cancel()
        state.withLock { _ = $0.expired.remove(id) }
        return granted
    }

    /// Frees a slot: to the first waiter, else back to the pool.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if !state.waiting.isEmpty { return state.waiting.removeFirst().continuation }
            state.busy -= 1
            return nil
        }
        next?.resume(returning: true)
    }

    /// The last line a dying worker wrote, made safe to show: printable ASCII, at most 200
    /// characters (librsvg's panic: `thread '<unnamed>' panicked at 'Data storage buffer
    /// dimension mismatch.'`).
    static func lastWords(_ errors: String) -> String {
        let lines = errors.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { $0.trimmingCharacters(in: .whitespaces) }
        let telling =
            lines.last { $0.contains("panicked") } ?? lines.last { $0.contains("alloc") || $0.contains("ERROR") }
            ?? lines.last { !$0.isEmpty && !$0.hasPrefix("note:") && !$0.hasPrefix("stack backtrace") } ?? ""
        let printable = String(String.UnicodeScalarView(telling.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }))
        return printable.count > 200 ? String(printable.prefix(200)) + "…" : printable
    }

    /// Whether a decoder's words say it ran out of memory.
    static func isMemoryFailure(_ text: String) -> Bool {
        let lower = text.lowercased()
        return ["failed to allocate", "out of memory", "memory allocation", "cannot allocate memory", "insufficient memory", "bad_alloc", "unable to mmap"]
            .contains { lower.contains($0) }
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGABRT: return "SIGABRT, an abort"
        case SIGSEGV: return "SIGSEGV, a bad memory access"
        case SIGBUS: return "SIGBUS"
        case SIGFPE: return "SIGFPE"
        case SIGILL: return "SIGILL"
        case SIGKILL: return "SIGKILL, killed from outside (out of memory?)"
        case SIGXFSZ: return "SIGXFSZ, an output file over the bound"
        default: return "signal \(signal)"
        }
    }

    static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto) / 1e18
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}
