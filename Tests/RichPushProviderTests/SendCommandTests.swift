import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// `richpush send`, run as the built binary against the mock APNs.
@Suite(.serialized) struct SendCommandTests {
    func send(_ mock: MockAPNs, _ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        var env = environment
        env["RICHPUSH_APNS_TEAM_ID"] = env["RICHPUSH_APNS_TEAM_ID"] ?? MockAPNs.teamID
        return try await ChildProcess(Fixtures.richpushBinary.path, [
            "send", "--key", mock.keyFile.path, "--topic", MockAPNs.topic,
            "--apns-url", mock.baseURL, "--ca-file", mock.caFile.path,
        ] + arguments, environment: env).run(timeout: 120)
    }

    @Test func aTokensFilePrintsOneJSONLinePerTokenAndASummary() async throws {
        let gone = MockAPNs.token("410")
        let mock = try await MockAPNs(script: [gone: [["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000]]])
        defer { mock.stop() }
        let file = mock.directory.appendingPathComponent("tokens.txt")
        let tokens = (1...50).map { MockAPNs.token(String(format: "%02x", $0)) } + [gone]
        // Comments, blank lines, blanks around tokens and CRLF line ends are all ignored.
        let fileLines: [String] = tokens.enumerated().map { (index: Int, token: String) -> String in
            let padded: String = index % 7 == 0 ? "  " + token + "\t" : token
            return padded + (index % 2 == 0 ? "\n" : "\r\n")
        }
        let text: String = "# tokens\r\n\n" + fileLines.joined() + "   \n# end"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let run = try await send(mock, ["--tokens", file.path, "--title", "お知らせ", "--body", "テスト", "--image", "https://example.com/001.jpg", "--push-id", "2018001"])
        #expect(run.status == 2)
        let lines = try run.stdout.split(separator: "\n").map { try JSONValue.parse(Data($0.utf8)) }
        #expect(lines.count == 51)
        #expect(lines.filter { $0["status"] == .int(200) && $0["apns-id"]?.stringValue != nil }.count == 50)
        #expect(lines.last?["reason"] == .string("Unregistered"))
        #expect(lines.last?["outcome"] == .string("token_inactive"))
        #expect(run.stderr.contains("sent 51, accepted 50"))
        #expect(run.stderr.contains("1 connection(s)"))
        #expect(run.stderr.contains("51/51 (100%)"))
        let key = try String(contentsOf: mock.keyFile, encoding: .utf8)
        let secretLine = key.split(separator: "\n")[1]
        #expect(!run.stdout.contains(secretLine) && !run.stderr.contains(secretLine))
    }

    @Test func aPayloadWithALintErrorIsNotSent() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let run = try await send(mock, ["--token", MockAPNs.token("aa"), "--payload", Fixtures.payloadsDirectory.appendingPathComponent("seed001-fcm-send.json").path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("fcm_legacy_mutable_content"))
        #expect(try await mock.stats()["requests"] == .int(0))
    }

    @Test func aWrongTeamStopsWithWhatToFix() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let run = try await send(mock, ["--token", MockAPNs.token("aa"), "--payload", Fixtures.payloadsDirectory.appendingPathComponent("seed003-url.json").path], environment: ["RICHPUSH_APNS_TEAM_ID": "WRONGTEAM0"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("InvalidProviderToken"))
        #expect(run.stderr.contains("--team-id"))
    }
}
