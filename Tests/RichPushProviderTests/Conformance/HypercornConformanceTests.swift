import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

/// RichPush's HTTP/2 client against hypercorn (Python h2 underneath), the server many Python
/// push services deploy: `Tests/Support/hypercorn_apns.py`, an APNs stand-in whose framing, flow
/// control and GOAWAY are hypercorn's own.
///
/// At `keep_alive_max_requests` (default 1,000) hypercorn sends GOAWAY with the highest stream
/// received as its last-stream-id, processes the streams at or below it, and never answers them
/// (h2 is closed by then; read in hypercorn's protocol/h2.py, seen on the wire). Those requests
/// reached the server and got no answer: the client cannot know, so they end `unknown` and are
/// never sent twice; the streams above the id were not processed and are resent.
@Suite("HTTP/2 conformance: hypercorn", .serialized)
struct HypercornConformanceTests {
    final class Hypercorn: @unchecked Sendable {
        let directory: URL
        let caFile: URL
        let port: Int
        private let child: ChildProcess

        init(_ options: [String]) async throws {
            directory = try Fixtures.temporaryDirectory("hypercorn-apns")
            caFile = directory.appendingPathComponent("ca.pem")
            child = ChildProcess(
                "python3", [Fixtures.supportDirectory.appendingPathComponent("hypercorn_apns.py").path, "--ca-out", caFile.path] + options)
            port = try await child.start(waitingForPort: 60)
            for _ in 0..<600 where !child.standardOutput.contains("\nCA ") {
                try await Task.sleep(nanoseconds: 50_000_000)
            }
        }

        var baseURL: String { "https://127.0.0.1:\(port)" }

        func stats() async throws -> RichPushJSONValue {
            let run = try await ChildProcess("curl", ["-s", "--http2", "--cacert", caFile.path, "\(baseURL)/stats"]).run(timeout: 60)
            guard run.status == 0 else { throw TestSupportError("curl /stats: \(run.stderr)") }
            return try RichPushJSONValue.parse(Data(run.stdout.utf8))
        }

        func stop() async {
            await child.terminate()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func send(_ tokens: [String], to server: Hypercorn, collapseID: String? = nil) async throws -> ConformanceRun {
        let manager = try await ConformanceRun.tokenManager(in: server.directory)
        let client = try ConformanceRun.client(
            baseURL: server.baseURL, caFile: server.caFile.path, manager: manager, connections: 2, streams: 100, requestTimeout: 10)
        let run = try await ConformanceRun.send(tokens, with: client, collapseID: collapseID)
        await client.1.close()
        return run
    }

    @Test("hypercorn without a request limit: 1,000 tokens over 2 connections, each accepted and processed once")
    func clean() async throws {
        let server = try await Hypercorn(["--max-requests", "1000000"])
        let tokens = ConformanceRun.tokens(1_000, salt: 81)
        let run = try await Self.send(tokens, to: server)
        let stats = try await server.stats()
        await server.stop()
        #expect(run.everyTokenOneResult(tokens))
        #expect(run.outcomes == ["accepted": tokens.count], "\(run.outcomes)")
        #expect(CMockAPNs.notOnce(tokens, stats).isEmpty)
        #expect(run.statistics.resetsSent == 0)
    }

    @Test("hypercorn's 300-request limit: accepted tokens processed once, the unanswered ones unknown and processed at most once, none twice")
    func maxRequests() async throws {
        let server = try await Hypercorn(["--max-requests", "300"])
        let tokens = ConformanceRun.tokens(2_000, salt: 82)
        let run = try await Self.send(tokens, to: server)
        let stats = try await server.stats()
        await server.stop()
        #expect(run.everyTokenOneResult(tokens))
        #expect(Set(run.outcomes.keys).isSubset(of: ["accepted", "unknown"]), "\(run.outcomes)")
        #expect(run.statistics.goawaysReceived >= 5, "\(run.statistics)")
        let perToken = stats["per_token"]
        let accepted = run.batch.results.filter { $0.outcome == .accepted }.map(\.deviceToken)
        #expect(accepted.allSatisfy { perToken?[$0]?.intValue == 1 }, "an accepted token processed other than once")
        #expect(stats["tokens_sent_twice"] == .int(0), "\(stats["tokens_sent_twice"] ?? .null) tokens reached hypercorn twice")
        // hypercorn's last-stream-id covers every stream it received, so nothing is above it: the
        // streams in flight at each GOAWAY (up to 2 × 100) end unknown (measured: 400 of 2,000).
        let unknown = run.batch.results.filter { $0.outcome == .unknown }.map(\.deviceToken)
        #expect(!unknown.isEmpty, "no answer was lost: the test shows nothing \(run.statistics)")
        #expect(unknown.allSatisfy { (perToken?[$0]?.intValue ?? 0) <= 1 })
    }
}
