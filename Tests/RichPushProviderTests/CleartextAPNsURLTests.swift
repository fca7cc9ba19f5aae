import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// `--apns-url http://…`: HTTP/2 without TLS by prior knowledge (h2c), for test servers. libcurl
/// 7.88 (Debian 12) failed every request after the first on a reused h2c connection (curl 16), so
/// such a URL used to be refused; RichPush's own HTTP/2 client reuses it like any connection.
@Suite("--apns-url http:// (HTTP/2 without TLS)")
struct CleartextAPNsURLTests {
    @Test("send over h2c: 300 tokens on one connection, every token accepted once")
    func sendReusesAnH2cConnection() async throws {
        let mock = try await MockAPNs(options: ["--no-tls"])
        defer { mock.stop() }
        let tokens = (0..<300).map { String(format: "%064x", 0xC1EA + $0) }
        let file = mock.directory.appendingPathComponent("tokens.txt")
        try Data((tokens.joined(separator: "\n") + "\n").utf8).write(to: file)
        let run = try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "send", "--key", mock.keyFile.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic, "--apns-url", mock.baseURL,
                "--tokens", file.path, "--title", "t", "--body", "b",
            ]
        ).run(timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try run.stdout.split(separator: "\n").map { try RichPushJSONValue.parse(Data($0.utf8)) }
        #expect(lines.count == tokens.count)
        #expect(lines.allSatisfy { $0["outcome"] == .string("accepted") })
        #expect(run.stderr.contains("1 connection(s) to "), "\(run.stderr)")
        let stats = try await mock.stats()
        #expect(stats["accepted"] == .int(tokens.count))
        #expect(stats["device_connections"] == .int(1), "\(stats)")
        let perToken = stats["per_token"]
        #expect(tokens.allSatisfy { perToken?[$0] == .int(1) })
    }
}
