import Foundation
import RichPushCore
import RichPushMedia
import RichPushTestSupport
import Testing

/// `MediaWorkerPool` (issue 28): conversions in worker processes that can die alone, bounded in
/// memory and time, several at once; performed with the files that took `richpush serve` down.
@Suite("Media worker pool", .serialized)
struct MediaWorkerPoolTests {
    /// The built `richpush` as the worker program (this process is the test runner).
    static func settings(workers: Int = 2, timeout: Duration = .seconds(20)) -> MediaWorkerPool.Settings {
        var settings = MediaWorkerPool.Settings()
        settings.command = [Fixtures.richpushBinary.path, MediaWorker.argument]
        settings.workers = workers
        settings.timeout = timeout
        return settings
    }

    static var svgOn: MediaOptimizer.Settings {
        var optimizer = MediaOptimizer.Settings()
        optimizer.allowsSVG = true
        return optimizer
    }

    static func write(_ data: Data, _ name: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    @Test("the SVG that aborted the server (feConvolveMatrix order 25): corrupt_media with librsvg's panic; the next conversion is done")
    func crashingSVG() async throws {
        let bench = try await MediaWorkbench.shared()
        let folder = try Fixtures.temporaryDirectory("worker-crash")
        defer { try? FileManager.default.removeItem(at: folder) }
        let svg = try Self.write(HostileMedia.convolveSVG(), "crash.svg", in: folder)
        let pool = MediaWorkerPool(optimizer: Self.svgOn, settings: Self.settings())
        defer { pool.shutdown() }
        do {
            let made = try await pool.optimize(svg, to: folder.appendingPathComponent("crash.jpg"))
            Issue.record("the crashing SVG was converted: \(made.result.line)")
        } catch {
            #expect(error.code == .corruptMedia, "\(error)")
            #expect(error.message.contains("the decoder crashed on this file (the media worker died of signal 6, SIGABRT"), "\(error.message)")
            #expect(error.message.contains("panicked"), "librsvg's own words: \(error.message)")
        }
        #expect(pool.statistics.died == 1)
        // The same pool converts the next file: a new worker took the dead one's place.
        let next = try await pool.optimize(bench.file("photo.webp"), to: folder.appendingPathComponent("next.jpg"))
        #expect(next.result.action == .converted)
        #expect(RichPushMediaFormat.sniff(try Data(contentsOf: folder.appendingPathComponent("next.jpg"))) == .jpeg)
        #expect(pool.statistics.answered == 1)
    }

    @Test("SVG is off unless allowed: unsupported_format naming allowsSVG, and the worker never renders it")
    func svgOffByDefault() async throws {
        let folder = try Fixtures.temporaryDirectory("worker-svg-off")
        defer { try? FileManager.default.removeItem(at: folder) }
        let svg = try Self.write(HostileMedia.convolveSVG(), "crash.svg", in: folder)
        let pool = MediaWorkerPool(settings: Self.settings(workers: 1))
        defer { pool.shutdown() }
        do {
            _ = try await pool.optimize(svg, to: folder.appendingPathComponent("out.jpg"))
            Issue.record("converted")
        } catch {
            #expect(error.code == .unsupportedFormat)
            #expect(error.setting == "allowsSVG", "\(error)")
        }
        #expect(pool.statistics.died == 0)
        #expect(pool.statistics.answered == 1)
    }

    @Test("a conversion past its time is stopped: media_timeout naming the setting; the worker is replaced")
    func slowSVGTimesOut() async throws {
        let bench = try await MediaWorkbench.shared()
        let folder = try Fixtures.temporaryDirectory("worker-slow")
        defer { try? FileManager.default.removeItem(at: folder) }
        let svg = try Self.write(HostileMedia.slowSVG(), "slow.svg", in: folder)
        // 10 s: the SVG renders for minutes, and the WebP after it (same pool, same bound) must
        // fit on 2 loaded cores (3 s did not, at load 20).
        let pool = MediaWorkerPool(optimizer: Self.svgOn, settings: Self.settings(workers: 1, timeout: .seconds(10)))
        defer { pool.shutdown() }
        do {
            _ = try await pool.optimize(svg, to: folder.appendingPathComponent("slow.jpg"))
            Issue.record("the slow SVG was converted within 10 s")
        } catch {
            #expect(error.code == .mediaTimeout, "\(error)")
            #expect(error.setting == "timeout")
            #expect(error.message.contains("ran past its 10 s and was stopped") || error.message.contains("more than 10 s of CPU"), "\(error.message)")
        }
        #expect(pool.statistics.timedOut == 1)
        #expect(pool.processIdentifiers.isEmpty, "the stopped worker is gone")
        let next = try await pool.optimize(bench.file("photo.webp"), to: folder.appendingPathComponent("next.jpg"))
        #expect(next.result.action == .converted)
    }

    @Test("two workers: a WebP is converted while a slow SVG holds the other worker")
    func parallel() async throws {
        let bench = try await MediaWorkbench.shared()
        let folder = try Fixtures.temporaryDirectory("worker-parallel")
        defer { try? FileManager.default.removeItem(at: folder) }
        let svg = try Self.write(HostileMedia.slowSVG(), "slow.svg", in: folder)
        let pool = MediaWorkerPool(optimizer: Self.svgOn, settings: Self.settings(workers: 2, timeout: .seconds(120)))
        defer { pool.shutdown() }
        try pool.prepare()
        let slow = Task { () -> MediaOptimizeError.Code? in
            do throws(MediaOptimizeError) {
                _ = try await pool.optimize(svg, to: folder.appendingPathComponent("slow.jpg"))
                return nil
            } catch {
                return error.code
            }
        }
        // The SVG is in a worker once the pool's other worker is the only idle one: wait until a
        // worker burns CPU.
        let busy = try await Self.waitForBusyWorker(pool)
        let webp = try await pool.optimize(bench.file("photo.webp"), to: folder.appendingPathComponent("webp.jpg"))
        #expect(webp.result.action == .converted)
        // The WebP was converted while the SVG was still being rendered: its worker is alive.
        #expect(kill(busy, 0) == 0, "the slow SVG's worker had ended before the WebP was done")
        slow.cancel()
        kill(busy, SIGKILL)
        _ = await slow.value
    }

    @Test("one worker busy past the queue's wait: media_timeout naming workers")
    func queueTimeout() async throws {
        let bench = try await MediaWorkbench.shared()
        let folder = try Fixtures.temporaryDirectory("worker-queue")
        defer { try? FileManager.default.removeItem(at: folder) }
        let svg = try Self.write(HostileMedia.slowSVG(), "slow.svg", in: folder)
        var settings = Self.settings(workers: 1, timeout: .seconds(60))
        settings.queueTimeout = .seconds(1)
        let pool = MediaWorkerPool(optimizer: Self.svgOn, settings: settings)
        defer { pool.shutdown() }
        let slow = Task { try? await pool.optimize(svg, to: folder.appendingPathComponent("slow.jpg")) }
        let busy = try await Self.waitForBusyWorker(pool)
        do {
            _ = try await pool.optimize(bench.file("photo.webp"), to: folder.appendingPathComponent("webp.jpg"))
            Issue.record("converted while the only worker was busy")
        } catch {
            #expect(error.code == .mediaTimeout, "\(error)")
            #expect(error.setting == "workers", "\(error)")
        }
        #expect(pool.statistics.queueTimeouts == 1)
        kill(busy, SIGKILL)
        _ = await slow.value
    }

    @Test("a worker holds nothing of the server's: its address space bounded, a small environment, only descriptors 0–2")
    func workerIsolation() async throws {
        setenv("RICHPUSH_ADMIN_TOKEN", "secret-token-of-the-server", 1)
        defer { unsetenv("RICHPUSH_ADMIN_TOKEN") }
        // A descriptor of the parent that is not close-on-exec must not reach the worker.
        let folder = try Fixtures.temporaryDirectory("worker-isolation")
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = folder.appendingPathComponent("parent-only")
        try Data("x".utf8).write(to: secret)
        let leaked = open(secret.path, O_RDONLY)
        defer { close(leaked) }
        #expect(leaked > 2)
        var settings = Self.settings(workers: 1)
        settings.memoryBytes = 768 << 20
        let pool = MediaWorkerPool(settings: settings)
        defer { pool.shutdown() }
        try pool.prepare()
        let pid = try #require(pool.processIdentifiers.first)
        let worker = try #require(ProcessTable.children().first { $0.pid == pid })
        #expect(worker.arguments.contains(MediaWorker.argument))
        // The worker has set its limits once it waits for a request; poll until it has.
        let deadline = ContinuousClock.now + .seconds(60)
        while ProcessTable.limit("Max address space", of: worker.pid)?.soft != String(768 << 20), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let space = try #require(ProcessTable.limit("Max address space", of: worker.pid))
        #expect(space.soft == String(768 << 20) && space.hard == String(768 << 20), "\(space)")
        #expect(ProcessTable.limit("Max core file size", of: worker.pid)?.soft == "0")
        #expect(ProcessTable.limit("Max open files", of: worker.pid)?.soft == "64")
        let environment = try #require(ProcessTable.environment(of: worker.pid))
        #expect(!environment.contains { $0.contains("secret-token-of-the-server") }, "\(environment)")
        #expect(
            Set(environment.map { String($0.prefix { $0 != "=" }) }).isSubset(of: [
                "MALLOC_ARENA_MAX", "SWIFT_BACKTRACE", "VIPS_CONCURRENCY", "VIPS_BLOCK_UNTRUSTED", "PATH", "LANG", "TMPDIR",
            ]), "\(environment)")
        // 0–2 are its pipes (and the copy of standard output it answers on); nothing of the parent's.
        let descriptors = try #require(ProcessTable.descriptors(of: worker.pid))
        let targets = descriptors.compactMap { fd in try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(worker.pid)/fd/\(fd)") }
        #expect(!targets.contains(secret.path), "the parent's open file reached the worker: \(targets)")
        #expect(!targets.contains { $0.hasPrefix("socket:") }, "a socket reached the worker: \(targets)")
        #expect(Array(descriptors.prefix(3)) == [0, 1, 2], "\(descriptors)")
    }

    @Test("the address-space bound holds: a 36-MP progressive JPEG converts under 1 GiB and is too_large under 400 MiB, the pool unharmed")
    func memoryBound() async throws {
        let bench = try await MediaWorkbench.shared()
        let folder = try Fixtures.temporaryDirectory("worker-memory")
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = folder.appendingPathComponent("prog.jpg")
        let noise = folder.appendingPathComponent("noise.v")
        for arguments in [
            ["gaussnoise", noise.path, "6000", "6000", "--sigma", "40", "--mean", "128"],
            ["bandjoin", "\(noise.path) \(noise.path) \(noise.path)", folder.appendingPathComponent("n3.v").path],
            ["cast", folder.appendingPathComponent("n3.v").path, folder.appendingPathComponent("u.v").path, "uchar"],
            ["jpegsave", folder.appendingPathComponent("u.v").path, jpeg.path, "--interlace", "--Q", "90"],
        ] {
            let run = try await ChildProcess("vips", arguments).run(timeout: 300)
            #expect(run.status == 0, "\(run.stderr)")
        }
        var small = Self.settings(workers: 1)
        small.memoryBytes = 400 << 20
        let tight = MediaWorkerPool(settings: small)
        defer { tight.shutdown() }
        do {
            let made = try await tight.optimize(jpeg, to: folder.appendingPathComponent("tight.jpg"))
            Issue.record("converted within 400 MiB: \(made.result.line), peak \(made.workerPeakBytes)")
        } catch {
            #expect(error.code == .tooLarge, "\(error)")
            #expect(error.message.contains("needed more than the media worker's 400 MiB of address space"), "\(error.message)")
            #expect(error.setting == "memoryBytes")
        }
        let next = try await tight.optimize(bench.file("photo.webp"), to: folder.appendingPathComponent("after.jpg"))
        #expect(next.result.action == .converted)

        let roomy = MediaWorkerPool(settings: Self.settings(workers: 1))
        defer { roomy.shutdown() }
        let made = try await roomy.optimize(jpeg, to: folder.appendingPathComponent("roomy.jpg"))
        #expect(made.result.action == .converted)
        // Pure noise at quality 90 (estimated 288 MB): 450–484 MB measured alone, 836 MB beside
        // the whole suite, more than the photo-like files of benchmarks/media-worker-memory.sh;
        // the hard bound is the worker's address space, 1 GiB (docs/limits.md), and the peak
        // stays under it.
        #expect(made.workerPeakBytes < 1 << 30, "peak \(made.workerPeakBytes / 1_000_000) MB")
    }

    /// The pid of one of `pool`'s workers that is using CPU (rendering), waiting up to 60 s.
    static func waitForBusyWorker(_ pool: MediaWorkerPool) async throws -> Int32 {
        try await ProcessTable.firstBusy { pool.processIdentifiers }
    }
}
