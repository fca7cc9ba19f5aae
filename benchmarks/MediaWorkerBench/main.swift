// richpush-media-bench: conversions per second through `MediaWorkerPool` (each in a worker
// process: `richpush __media-worker`, under RLIMIT_AS and a deadline) against `MediaOptimizer` in
// this process, on the same files: the price of the isolation (issue 28). Run by
// benchmarks/media-optimize.sh; prints one line per input and mode.
//
// Usage: richpush-media-bench RICHPUSH_BINARY SECONDS FILE...
import Foundation
import RichPushMedia

let arguments = CommandLine.arguments
guard arguments.count >= 4, let seconds = Double(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: richpush-media-bench RICHPUSH_BINARY SECONDS FILE...\n".utf8))
    exit(64)
}
let binary = arguments[1]
let files = arguments.dropFirst(3).map { URL(fileURLWithPath: $0) }
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-media-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }

/// Runs `streams` loops at once for `seconds`, each converting `file` again and again; returns
/// conversions per second and the median queue wait (pool only).
func rate(_ file: URL, streams: Int, convert: @escaping @Sendable (URL, URL) async throws -> Int) async -> (perSecond: Double, count: Int, queueMs: Int) {
    let started = ContinuousClock.now
    let end = started + .milliseconds(Int(seconds * 1000))
    let results = await withTaskGroup(of: [Int].self) { group in
        for stream in 0..<streams {
            group.addTask {
                var waits: [Int] = []
                var i = 0
                while ContinuousClock.now < end {
                    let output = scratch.appendingPathComponent("\(stream)-\(i).jpg")
                    if let wait = try? await convert(file, output) { waits.append(wait) }
                    try? FileManager.default.removeItem(at: output)
                    i += 1
                }
                return waits
            }
        }
        var all: [Int] = []
        for await waits in group { all += waits }
        return all
    }
    let elapsed = ContinuousClock.now - started
    let (s, atto) = elapsed.components
    let total = Double(s) + Double(atto) / 1e18
    let sorted = results.sorted()
    return (Double(results.count) / total, results.count, sorted.isEmpty ? 0 : sorted[sorted.count / 2])
}

// ROUNDS rounds (default 3), the modes alternating within each, so that the machine's load
// falls on every mode alike; each mode's median over the rounds is printed.
let rounds = max(1, Int(ProcessInfo.processInfo.environment["ROUNDS"] ?? "") ?? 3)
for file in files {
    let optimizer = MediaOptimizer()
    // Warm libvips in this process (its start and the first decode's plugins are not the work).
    _ = try? optimizer.optimize(file, to: scratch.appendingPathComponent("warm.jpg"))
    var pools: [Int: MediaWorkerPool] = [:]
    for workers in [1, 2] {
        var settings = MediaWorkerPool.Settings()
        settings.command = [binary, MediaWorker.argument]
        settings.workers = workers
        settings.timeout = .seconds(120)
        let pool = MediaWorkerPool(settings: settings)
        try pool.prepare()
        _ = try? await pool.optimize(file, to: scratch.appendingPathComponent("warm-\(workers).jpg"))
        pools[workers] = pool
    }
    var inProcess: [Double] = []
    var pooled: [Int: [Double]] = [1: [], 2: []]
    for _ in 0..<rounds {
        // In process, one at a time: what `richpush serve` did before the workers.
        inProcess.append(
            await rate(file, streams: 1) { input, output in
                _ = try optimizer.optimize(input, to: output)
                return 0
            }.perSecond)
        for workers in [1, 2] {
            guard let pool = pools[workers] else { continue }
            pooled[workers, default: []].append(
                await rate(file, streams: workers) { input, output in try await pool.optimize(input, to: output).queueMs }.perSecond)
        }
    }
    for pool in pools.values { pool.shutdown() }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let reference = median(inProcess)
    func show(_ values: [Double]) -> String { values.map { String(format: "%.2f", $0) }.joined(separator: ", ") }
    print("\(file.lastPathComponent): in process, 1 at a time: \(String(format: "%.2f", reference)) conversions/s (rounds: \(show(inProcess)))")
    for workers in [1, 2] {
        let values = pooled[workers] ?? []
        print(
            "\(file.lastPathComponent): worker pool, \(workers) worker(s): \(String(format: "%.2f", median(values))) conversions/s (rounds: \(show(values))), \(String(format: "%.2f", median(values) / max(reference, 0.001)))× in process"
        )
    }
}
