import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushProvider

/// `richpush send` ends cleanly: no crash in libcrypto at exit after the summary (OpenSSL's
/// `atexit` cleanup racing the transport thread), and `close()` waits for the transport's thread.
@Suite(.serialized) struct SendExitTests {
    @Test("100 sends of the sending guide's 2-token example (200 and 410) each end with exit status 2, never 134 or 139")
    func repeatedSendsExitCleanly() async throws {
        let gone = MockAPNs.token("410")
        let mock = try await MockAPNs(script: [gone: [["status": 410, "reason": "Unregistered"]]])
        defer { mock.stop() }
        let file = mock.directory.appendingPathComponent("tokens.txt")
        try [MockAPNs.token("01"), gone].joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let arguments = [
            "send", "--key", mock.keyFile.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic,
            "--apns-url", mock.baseURL, "--ca-file", mock.caFile.path, "--tokens", file.path, "--title", "Hello", "--body", "From the mock",
        ]
        // Two at a time: the exit race showed under load.
        var statuses: [Int32] = []
        var lastError = ""
        for _ in 0..<50 {
            async let first = ChildProcess(Fixtures.richpushBinary.path, arguments).run(timeout: 60)
            async let second = ChildProcess(Fixtures.richpushBinary.path, arguments).run(timeout: 60)
            for run in try await [first, second] {
                statuses.append(run.status)
                if run.status != 2 { lastError = run.stderr }
                #expect(run.stdout.split(separator: "\n").count == 2)
            }
        }
        #expect(statuses == Array(repeating: 2, count: 100), "\(lastError)")
    }

    @Test("send with standard output on /dev/full: every result line lost, so exit 1 and the reason, after the summary")
    func sendToAFullStandardOutput() async throws {
        let gone = MockAPNs.token("410")
        let mock = try await MockAPNs(script: [gone: [["status": 410, "reason": "Unregistered"]]])
        defer { mock.stop() }
        let file = mock.directory.appendingPathComponent("tokens.txt")
        try [MockAPNs.token("01"), gone].joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let run = try await ChildProcess(
            "/bin/sh",
            [
                "-c", #"exec "$0" "$@" > /dev/full"#, Fixtures.richpushBinary.path,
                "send", "--key", mock.keyFile.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic,
                "--apns-url", mock.baseURL, "--ca-file", mock.caFile.path, "--tokens", file.path, "--title", "Hello", "--body", "From the mock",
            ]
        ).run(timeout: 60)
        #expect(run.status == 1, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("richpush send: 2 tokens, sent 2, accepted 1 (accepted 1, token_inactive 1)") })
        #expect(
            lines.last
                == "richpush send: cannot write standard output: no space left on device; free some space where standard output goes, or redirect it to another file (> FILE)"
        )
    }

    @Test("close() returns once the client's connections are closed: requests after it fail at once, a second close returns")
    func closeWaitsForTheTransportThread() async throws {
        let transport = try HTTP2Client()
        await transport.close()
        await transport.close()
        do {
            _ = try await transport.send(TransportRequest(method: "GET", url: "http://127.0.0.1:9/"))
            Issue.record("a send after close() succeeded")
        } catch let error as RichPushError {
            #expect(error.code == .transport)
            #expect(error.message == "the HTTP/2 client was shut down")
        }
    }
}
