import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// The sending guide's "Try it without Apple credentials" block (docs/sending.md; it was in
/// README.md before the README became an entry page), run as written (in a scratch folder, with
/// this build's richpush first on PATH): T1 accepted, T2 token_inactive, exit status 2.
@Suite struct SendingGuideMockSendTests {
    /// The shell block that follows the paragraph's heading in docs/sending.md.
    static func guideBlock() throws -> [String] {
        let guide = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/sending.md"), encoding: .utf8)
        let lines = guide.components(separatedBy: "\n")
        let heading = try #require(lines.firstIndex { $0.hasPrefix("**Try it without Apple credentials: the bundled mock APNs.**") })
        let open = try #require(lines[heading...].firstIndex { $0 == "```sh" })
        let close = try #require(lines[(open + 1)...].firstIndex { $0 == "```" })
        return Array(lines[(open + 1)..<close])
    }

    @Test func theGuideCommandsSendThroughTheMockAPNs() async throws {
        var block = try Self.guideBlock()
        // "PORT=… # once the line is there": a reader waits for the mock's first line.
        let portLine = try #require(block.firstIndex { $0.hasPrefix("PORT=") })
        block.insert("for _ in $(seq 1 300); do grep -q '^PORT ' apns.out && break; sleep 0.1; done", at: portLine)
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createSymbolicLink(
            at: dir.appendingPathComponent("Tests"), withDestinationURL: Fixtures.packageRoot.appendingPathComponent("Tests"))
        let bin = Fixtures.richpushBinary.deletingLastPathComponent().path
        // The mock is stopped with SIGKILL: children of the test process start with SIGTERM
        // blocked, and a mock left running would hold Foundation's exit pipe open.
        let script =
            ["set -u", "cd '\(dir.path)'", "export PATH='\(bin)':\"$PATH\"", "trap 'kill -KILL $(jobs -p) 2>/dev/null' EXIT"] + block
            + ["status=$?", "curl -sk --http2 \"https://127.0.0.1:$PORT/stats\" > stats.json", "exit $status"]
        let run = try await ChildProcess("/bin/bash", ["-c", script.joined(separator: "\n")]).run(timeout: 120)
        #expect(run.status == 2, "\(run.stderr)")
        let results = try run.stdout.split(separator: "\n").map { try RichPushJSONValue.parse(Data($0.utf8)) }
        let byToken = Dictionary(uniqueKeysWithValues: results.compactMap { r in r["token"]?.stringValue.map { ($0, r["outcome"]) } })
        #expect(byToken == [String(format: "%064x", 1): .string("accepted"), String(format: "%064x", 2): .string("token_inactive")])
        #expect(run.stderr.contains("accepted 1, token_inactive 1"), "\(run.stderr)")
        // The mock saw both requests with one verified provider token.
        let stats = try RichPushJSONValue.parse(Data(contentsOf: dir.appendingPathComponent("stats.json")))
        #expect(stats["requests"]?.intValue == 2 && stats["accepted"]?.intValue == 1 && stats["jwts"]?.intValue == 1, "\(stats)")
    }
}
