import Foundation
import RichPushTestSupport
import Testing

/// Hostile and heavy input never holds more than a bounded amount of memory: the peak RSS of a
/// `richpush media optimize` process (Swift runtime and libvips included), measured by the
/// kernel (`getrusage` of the child).
@Suite("Optimiser memory", .serialized)
struct OptimizerMemoryTests {
    /// 160 MB: well under the 243 MB that decoding the 9000×9000 PNG whole would take by itself
    /// (9000 × 9000 × 3 bytes), and 1/90 of the 14.4 GB a 60000×60000 flood would.
    static let boundBytes = 160 * 1024 * 1024

    @Test("peak RSS bounded for a pixel flood, a 9000×9000 PNG and a 12 MB JPEG", arguments: ["flood.png", "huge.png", "big.jpg"])
    func peakRSS(_ name: String) async throws {
        let bench = try await MediaWorkbench.shared()
        let output = bench.file("opt/rss-\(name).jpg")
        let script = """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], capture_output=True)
            print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
            sys.stderr.write(r.stderr.decode(errors='replace'))
            """
        let run = try await ChildProcess(
            "python3",
            [
                "-c", script, Fixtures.richpushBinary.path, "media", "optimize", bench.file(name).path, "--output", output.path,
                // Memory is measured here, not time: a 9000 × 9000 PNG ran past the default 20 s
                // beside the other suites at load 20.
                "--media-timeout", "100",
            ]
        ).run(timeout: 120)
        let fields = run.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let status = try #require(fields.first, "\(run.stdout) \(run.stderr)")
        let peak = try #require(fields.last)
        #expect(status == (name == "flood.png" ? 1 : 0), "\(run.stderr)")
        #expect(peak > 1024 * 1024)
        #expect(peak < Self.boundBytes, "\(name): peak RSS \(peak / 1024 / 1024) MB")
    }
}
