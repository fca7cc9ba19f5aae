import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// `richpush send --apns-connections N` (issue 21 item 4) against `mock_apns.py` 200 ms away
/// with Apple's stream limit (1 until the first answer, then 5 here; few requests per second, so
/// a loaded machine hardly slows the Python mock): N connections, each within
/// its limit, one provider token, and N = 4 faster than N = 1 in the same run.
@Suite("richpush send --apns-connections", .serialized)
struct SendConnectionsTests {
    struct Run {
        var seconds: Double
        var stats: RichPushJSONValue
        var stderr: String
    }

    static let count = 100

    /// Sends to `count` tokens with `connections` connections against a fresh mock.
    static func run(connections: Int, tokens: URL) async throws -> Run {
        let mock = try await MockAPNs(options: ["--delay-ms", "200", "--initial-streams", "1", "--max-streams", "5"])
        defer { mock.stop() }
        let started = ContinuousClock.now
        let result = try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "send", "--key", mock.keyFile.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic, "--apns-url", mock.baseURL,
                "--ca-file", mock.caFile.path, "--tokens", tokens.path, "--title", "t", "--body", "b", "--apns-connections", String(connections),
                "--concurrency", "5",
            ]
        ).run(timeout: 120)
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 0, "\(result.stderr)")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Run(seconds: seconds, stats: try await mock.stats(), stderr: result.stderr)
    }

    @Test("N = 4: exactly 4 connections, each within the server's stream limit, one JWT, every token once, faster than N = 1")
    func fourConnectionsBeatOne() async throws {
        let directory = try Fixtures.temporaryDirectory("send-connections")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokens = directory.appendingPathComponent("tokens.txt")
        let all = (0..<Self.count).map { String(format: "%064x", $0) }
        try Data((all.joined(separator: "\n") + "\n").utf8).write(to: tokens)

        // Interleaved, twice each; the faster of each pair is compared (the machine is shared:
        // the least disturbed run is the one that shows what the connections do).
        var ones: [Run] = []
        var fours: [Run] = []
        for _ in 0..<2 {
            ones.append(try await Self.run(connections: 1, tokens: tokens))
            fours.append(try await Self.run(connections: 4, tokens: tokens))
        }
        let one = try #require(ones.min { $0.seconds < $1.seconds })
        let four = try #require(fours.min { $0.seconds < $1.seconds })
        for (run, connections) in ones.map({ ($0, 1) }) + fours.map({ ($0, 4) }) {
            #expect(run.stats["device_connections"] == .int(connections), "\(run.stderr)")
            #expect(run.stats["accepted"] == .int(Self.count))
            #expect(run.stats["jwts"] == .int(1))
            #expect(run.stats["stream_limit_violations"] == .int(0))
            #expect((run.stats["max_concurrent_streams"]?.intValue ?? 99) <= 5)
            #expect(run.stderr.contains("\(connections) connection(s)"), "\(run.stderr)")
            let perToken = run.stats["per_token"]
            #expect(all.allSatisfy { perToken?[$0] == .int(1) })
        }
        // Streams open at once over all connections: one connection's 5, four's up to 20.
        #expect(ones.allSatisfy { $0.stats["peak_open_streams"] == .int(5) })
        #expect(fours.allSatisfy { ($0.stats["peak_open_streams"]?.intValue ?? 0) > 10 })
        // Bound: 100 / (N × 5 streams) × 200 ms = 4 s for N = 1, 1 s for N = 4 (ratio 4).
        #expect(one.seconds / four.seconds >= 2, "N=1 \(ones.map(\.seconds)) s, N=4 \(fours.map(\.seconds)) s")
    }
}
