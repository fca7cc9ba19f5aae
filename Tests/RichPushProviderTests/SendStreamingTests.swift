import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// `richpush send` through FCM, tokens streamed from standard input, and the payload bytes that
/// reach the provider (issue 11), run as the built binary against the project's mocks.
@Suite(.serialized) struct SendStreamingTests {
    func richpush(_ arguments: [String], environment: [String: String] = [:], stdinFile: URL? = nil) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        if let stdinFile {
            return try await ChildProcess(
                "/bin/sh", ["-c", "\"$0\" \"$@\" < '\(stdinFile.path)'", Fixtures.richpushBinary.path] + arguments, environment: environment
            ).run(timeout: 120)
        }
        return try await ChildProcess(Fixtures.richpushBinary.path, arguments, environment: environment).run(timeout: 120)
    }

    @Test func fcmSendsTheSamePayloadWithTheSameLinesProgressAndSummary() async throws {
        let mock = try await MockFCMProcess(script: ["busy-1": [["status": 429, "errorCode": "QUOTA_EXCEEDED", "retryAfter": "1"], ["status": 200]]])
        defer { mock.stop() }
        let file = mock.directory.appendingPathComponent("tokens.txt")
        let tokens = (1...30).map { "fcm-token-\($0):APA91b" } + ["unregistered-1", "invalid-1", "mismatch-1", "busy-1"]
        try ("# FCM registration tokens\n" + tokens.joined(separator: "\r\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let run = try await richpush(
            [
                "send", "--fcm-url", mock.endpoint, "--tokens", file.path, "--title", "お知らせ", "--body", "テスト",
                "--image", "https://example.com/001.jpg", "--push-id", "2018001", "--priority", "10",
            ],
            environment: ["RICHPUSH_FCM_SERVICE_ACCOUNT": mock.serviceAccountFile.path])
        #expect(run.status == 2, "\(run.stderr)")
        let lines = try run.stdout.split(separator: "\n").map { try RichPushJSONValue.parse(Data($0.utf8)) }
        #expect(lines.count == 34)
        let byToken = Dictionary(uniqueKeysWithValues: lines.compactMap { line in line["token"]?.stringValue.map { ($0, line) } })
        #expect(byToken.count == 34)
        #expect(byToken["fcm-token-1:APA91b"]?["outcome"] == .string("accepted"))
        #expect(byToken["fcm-token-1:APA91b"]?["message_id"]?.stringValue?.hasPrefix("projects/demo-project/messages/") == true)
        #expect(byToken["unregistered-1"]?["outcome"] == .string("token_inactive"))
        #expect(byToken["unregistered-1"]?["reason"] == .string("UNREGISTERED"))
        #expect(byToken["invalid-1"]?["outcome"] == .string("token_bad"))
        #expect(byToken["mismatch-1"]?["reason"] == .string("SENDER_ID_MISMATCH"))
        #expect(byToken["busy-1"]?["outcome"] == .string("accepted"))
        #expect(byToken["busy-1"]?["attempts"] == .int(2))
        #expect(run.stderr.contains("34/34 (100%)"))
        #expect(run.stderr.contains("34 tokens, sent 34, accepted 31 (accepted 31, token_bad 2, token_inactive 1)"))
        #expect(run.stderr.contains("project demo-project"))
        // The APNs payload inside the FCM message: the built payload, push id and image included.
        let sent = try #require(try await mock.stats()["last_message"])
        #expect(sent["apns"]?["payload"]?["push_id"] == .string("2018001"))
        #expect(sent["apns"]?["payload"]?["aps"]?["mutable-content"] == .int(1))
        #expect(sent["apns"]?["fcm_options"]?["image"] == .string("https://example.com/001.jpg"))
        #expect(sent["apns"]?["headers"]?["apns-priority"] == .string("10"))
        // The service account's private key is never printed.
        let key = try String(contentsOf: mock.serviceAccountFile, encoding: .utf8)
        #expect(!key.isEmpty && !run.stderr.contains("PRIVATE KEY") && !run.stdout.contains("PRIVATE KEY"))
    }

    @Test func fcmAndAPNsSettingsTogetherAreAUsageErrorUnlessAProviderIsChosen() async throws {
        let both = try await richpush([
            "send", "--fcm-service-account", "/tmp/sa.json", "--key", "/tmp/AuthKey_ABC123DEFG.p8", "--title", "t", "--body", "b", "--token", "x",
        ])
        #expect(both.status == 64)
        #expect(both.stderr.contains("not both"))
        let env = try await richpush(
            ["send", "--title", "t", "--body", "b", "--token", "x"],
            environment: ["RICHPUSH_FCM_SERVICE_ACCOUNT": "/tmp/sa.json", "RICHPUSH_APNS_KEY": "/tmp/k.p8"])
        #expect(env.status == 64)
        #expect(env.stderr.contains("--provider apns|fcm"))
        let topic = try await richpush([
            "send", "--fcm-service-account", "/tmp/sa.json", "--topic", "com.example.app", "--title", "t", "--body", "b", "--token", "x",
        ])
        #expect(topic.status == 64)
        #expect(topic.stderr.contains("'--topic' is not used with FCM"))
    }

    @Test func tokensOnStandardInputAreStreamedAndEveryTokenGetsALine() async throws {
        let gone = MockAPNs.token("410")
        let mock = try await MockAPNs(script: [gone: [["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000]]])
        defer { mock.stop() }
        let file = mock.directory.appendingPathComponent("tokens.txt")
        let tokens = (1...3000).map { MockAPNs.token(String(format: "%04x", $0)) } + [gone]
        try (tokens.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let run = try await richpush(
            [
                "send", "--key", mock.keyFile.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic, "--apns-url", mock.baseURL,
                "--ca-file", mock.caFile.path, "--tokens", "-", "--title", "t", "--body", "b",
            ],
            stdinFile: file)
        #expect(run.status == 2, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 3001)
        #expect(Set(try lines.map { try RichPushJSONValue.parse(Data($0.utf8))["token"]?.stringValue ?? "" }) == Set(tokens))
        #expect(run.stderr.contains("3001 done"))
        #expect(run.stderr.contains("3001 tokens, sent 3001, accepted 3000 (accepted 3000, token_inactive 1); 1 connection(s)"))
    }

    @Test func aStopMidFileReportsEveryLaterTokenNotSent() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let file = mock.directory.appendingPathComponent("tokens.txt")
        try ((1...2500).map { MockAPNs.token(String(format: "%04x", $0)) }.joined(separator: "\n")).write(to: file, atomically: true, encoding: .utf8)
        let run = try await richpush(
            [
                "send", "--key", mock.keyFile.path, "--team-id", "WRONGTEAM0", "--topic", MockAPNs.topic, "--apns-url", mock.baseURL,
                "--ca-file", mock.caFile.path, "--tokens", file.path, "--title", "t", "--body", "b", "--concurrency", "100",
            ])
        #expect(run.status == 1)
        #expect(run.stderr.contains("InvalidProviderToken"))
        let lines = try run.stdout.split(separator: "\n").map { try RichPushJSONValue.parse(Data($0.utf8)) }
        #expect(lines.count == 2500)
        #expect(lines.filter { $0["outcome"] == .string("not_sent") }.count >= 2000)
        #expect(try await mock.stats()["requests"]?.intValue ?? 9999 <= 300)
    }

    @Test func thePayloadFileReachesAPNsByteForByteWithThePushIDAdded() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let payload = mock.directory.appendingPathComponent("payload.json")
        let text = #"{"aps":{"alert":{"body":"\#u{FEFF}b\ud800","title":"t"}},"big":18446744073709551615,"d":0.1000,"e":1e400}"#
        try Data(text.utf8).write(to: payload)
        let run = try await richpush(
            [
                "send", "--key", mock.keyFile.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic, "--apns-url", mock.baseURL,
                "--ca-file", mock.caFile.path, "--token", MockAPNs.token("aa"), "--payload", payload.path, "--push-id", "p-1",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let body = try #require(try await mock.stats()["last_body_b64"]?.stringValue.flatMap { Data(base64Encoded: $0) })
        let expected = text.replacingOccurrences(of: #","e":1e400}"#, with: #","e":1e400,"push_id":"p-1"}"#)
        #expect(String(decoding: body, as: UTF8.self) == expected)
    }
}
