import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// `richpush send`, run as the built binary against the mock APNs.
@Suite(.serialized) struct SendCommandTests {
    func send(_ mock: MockAPNs, _ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        var env = environment
        env["RICHPUSH_APNS_TEAM_ID"] = env["RICHPUSH_APNS_TEAM_ID"] ?? MockAPNs.teamID
        return try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "send", "--key", mock.keyFile.path, "--topic", MockAPNs.topic,
                "--apns-url", mock.baseURL, "--ca-file", mock.caFile.path,
            ] + arguments, environment: env
        ).run(timeout: 120)
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
        let run = try await send(
            mock, ["--tokens", file.path, "--title", "お知らせ", "--body", "テスト", "--image", "https://example.com/001.jpg", "--push-id", "2018001"])
        #expect(run.status == 2)
        let lines = try run.stdout.split(separator: "\n").map { try RichPushJSONValue.parse(Data($0.utf8)) }
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

    @Test("a 410 whose timestamp is past Int's range (1e19, 2^64-ish, negative) is Unregistered, without a crash")
    func aTimestampOutOfRangeIsUnregistered() async throws {
        let huge = MockAPNs.token("e19")
        let wide = MockAPNs.token("e20")
        let negative = MockAPNs.token("e21")
        let mock = try await MockAPNs(script: [
            huge: [["status": 410, "reason": "Unregistered", "timestamp": 1e19]],
            wide: [["status": 410, "reason": "Unregistered", "timestamp": UInt64(10_000_000_000_000_000_000)]],
            negative: [["status": 410, "reason": "ExpiredToken", "timestamp": -1e30]],
        ])
        defer { mock.stop() }
        let file = mock.directory.appendingPathComponent("tokens.txt")
        try [huge, wide, negative].joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let run = try await send(mock, ["--tokens", file.path, "--title", "t", "--body", "b"])
        #expect(run.status == 2, "\(run.stderr)")  // not 132 (SIGILL)
        let lines = try run.stdout.split(separator: "\n").map { try RichPushJSONValue.parse(Data($0.utf8)) }
        #expect(lines.count == 3)
        for line in lines {
            #expect(line["status"] == .int(410))
            #expect(line["outcome"] == .string("token_inactive"))
            #expect(line["timestamp"] == nil)
        }
        #expect(run.stderr.contains("sent 3, accepted 0"))
    }

    @Test func aPayloadWithALintErrorIsNotSent() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let run = try await send(
            mock, ["--token", MockAPNs.token("aa"), "--payload", Fixtures.payloadsDirectory.appendingPathComponent("seed001-fcm-send.json").path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("fcm_legacy_mutable_content"))
        #expect(try await mock.stats()["requests"] == .int(0))
    }

    @Test func aWrongTeamStopsWithWhatToFix() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let run = try await send(
            mock, ["--token", MockAPNs.token("aa"), "--payload", Fixtures.payloadsDirectory.appendingPathComponent("seed003-url.json").path],
            environment: ["RICHPUSH_APNS_TEAM_ID": "WRONGTEAM0"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("InvalidProviderToken"))
        #expect(run.stderr.contains("--team-id"))
    }

    // MARK: Configuration errors stop at once (exit 1), with what to fix

    func tokens(_ count: Int) -> [String] {
        (1...count).flatMap { ["--token", MockAPNs.token(String(format: "%02x", $0))] }
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess(Fixtures.richpushBinary.path, ["send"] + arguments, environment: environment).run(timeout: 120)
    }

    @Test func aGarbageCertificateStopsBeforeAnyRequest() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let garbage = mock.directory.appendingPathComponent("garbage.p8")
        try Data("not a certificate\n".utf8).write(to: garbage)
        let result = try await run(
            ["--cert", garbage.path, "--topic", MockAPNs.topic, "--apns-url", mock.baseURL, "--ca-file", mock.caFile.path, "--title", "t", "--body", "b"]
                + tokens(3))
        #expect(result.status == 1)
        #expect(result.stderr.contains("--cert \(garbage.path): not a PKCS#12 or PEM certificate"))
        #expect(try await mock.stats()["requests"] == .int(0))
    }

    @Test func aPEMCertificateWithItsKeyPassesTheCheckAndAPEMWithoutKeyNeedsCertKey() async throws {
        let mock = try await MockAPNs(clientCertificate: true)
        defer { mock.stop() }
        let pem = try #require(mock.clientCertificateFile)
        let common = [
            "--topic", MockAPNs.topic, "--apns-url", mock.baseURL, "--ca-file", mock.caFile.path, "--title", "t", "--body", "b", "--token",
            MockAPNs.token("ce"),
        ]
        let good = try await run(["--cert", pem.path] + common)
        #expect(good.status == 0, "\(good.stderr)")
        // The certificate alone (no key in the file): the key must come with --cert-key.
        let text = try String(contentsOf: pem, encoding: .utf8)
        let certOnly = mock.directory.appendingPathComponent("cert-only.pem")
        let keyOnly = mock.directory.appendingPathComponent("key-only.pem")
        // PEM blocks, each from its BEGIN line to its END line.
        var blocks: [String] = []
        var current: [Substring] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("-----BEGIN ") { current = [] }
            current.append(line)
            if line.hasPrefix("-----END ") { blocks.append(current.joined(separator: "\n")) }
        }
        let certBlock = try #require(blocks.first { $0.hasPrefix("-----BEGIN CERTIFICATE-----") })
        let keyBlock = try #require(blocks.first { $0.split(separator: "\n").first?.contains("PRIVATE KEY") == true })
        try (certBlock + "\n").write(to: certOnly, atomically: true, encoding: .utf8)
        try (keyBlock + "\n").write(to: keyOnly, atomically: true, encoding: .utf8)
        let noKey = try await run(["--cert", certOnly.path] + common)
        #expect(noKey.status == 1)
        #expect(noKey.stderr.contains("no private key"))
        #expect(noKey.stderr.contains("--cert-key"))
        let withKey = try await run(["--cert", certOnly.path, "--cert-key", keyOnly.path] + common)
        #expect(withKey.status == 0, "\(withKey.stderr)")
    }

    @Test func aCAFileThatIsNotACertificateStopsBeforeAnyRequest() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let bad = try await run([
            "--key", mock.keyFile.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic, "--apns-url", mock.baseURL, "--ca-file", mock.keyFile.path,
            "--title", "t", "--body", "b", "--token", MockAPNs.token("aa"),
        ])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("--ca-file \(mock.keyFile.path): not a PEM certificate"))
    }

    @Test func anUntrustedServerCertificateStopsTheBatchAfterOneAttempt() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let otherCA = mock.directory.appendingPathComponent("other-ca.pem")
        let made = try await ChildProcess(
            "/bin/sh",
            [
                "-c",
                "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout '\(mock.directory.path)/other.key' -out '\(otherCA.path)' -subj /CN=other -days 1",
            ]
        ).run(timeout: 30)
        try #require(made.status == 0, "\(made.stderr)")
        let result = try await run(
            [
                "--key", mock.keyFile.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic, "--apns-url", mock.baseURL, "--ca-file", otherCA.path,
                "--title", "t", "--body", "b",
            ] + tokens(8))
        #expect(result.status == 1)
        #expect(result.stderr.contains("not trusted"))
        #expect(result.stderr.contains("--ca-file"))
        let lines = try result.stdout.split(separator: "\n").map { try RichPushJSONValue.parse(Data($0.utf8)) }
        #expect(lines.count == 8)
        #expect(lines.allSatisfy { ($0["attempts"]?.intValue ?? 99) <= 1 })
        #expect(lines.contains { $0["outcome"] == .string("configuration_error") })
    }

    @Test func anUnreachableHostGivesUpTheBatchInsteadOfRetryingEveryToken() async throws {
        let mock = try await MockAPNs()
        let closedURL = mock.baseURL
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = dir.appendingPathComponent(mock.keyFile.lastPathComponent), ca = dir.appendingPathComponent("ca.pem")
        try FileManager.default.copyItem(at: mock.keyFile, to: key)
        try FileManager.default.copyItem(at: mock.caFile, to: ca)
        mock.stop()  // nothing listens on the port any more: every connection is refused
        let result = try await run(
            [
                "--key", key.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic, "--apns-url", closedURL, "--ca-file", ca.path,
                "--title", "t", "--body", "b", "--concurrency", "1", "--max-attempts", "2",
            ] + tokens(40))
        #expect(result.status == 1)
        #expect(result.stderr.contains("gave up the batch"))
        let lines = try result.stdout.split(separator: "\n").map { try RichPushJSONValue.parse(Data($0.utf8)) }
        #expect(lines.count == 40)
        #expect(lines.filter { $0["outcome"] == .string("not_sent") }.count >= 20)
    }

    // MARK: Flags and messages

    @Test(arguments: [
        (["--push-type", "bogus"], "not an APNs push type"),
        (["--collapse-id", String(repeating: "x", count: 65)], "at most 64 bytes"),
        (["--team-id", "bad"], "'--team-id bad' is not 10 letters or digits"),
        (["--key-id", "KEY"], "the key id 'KEY' is not 10 letters or digits"),
        (["--cert-key", "/tmp/none.pem"], "'--cert-key' goes with '--cert FILE'"),
    ])
    func aBadFlagIsAUsageErrorSayingWhatIsWrong(flag: [String], message: String) async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let result = try await send(mock, ["--title", "t", "--body", "b", "--token", MockAPNs.token("aa")] + flag)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try await mock.stats()["requests"] == .int(0))
    }

    @Test func anEmptyTokensFileIsNamed() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let file = mock.directory.appendingPathComponent("empty.txt")
        try Data("# none yet\n\n".utf8).write(to: file)
        let result = try await send(mock, ["--title", "t", "--body", "b", "--tokens", file.path])
        #expect(result.status == 64)
        #expect(result.stderr.contains("the tokens file \(file.path) has no device tokens"))
    }

    @Test func lintFixIsSuggestedOnlyForAFixablePayloadFile() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let built = try await send(mock, ["--title", "t", "--body", "b", "--image", "http://example.com/a.jpg", "--token", MockAPNs.token("aa")])
        #expect(built.status == 1)
        #expect(built.stderr.contains("insecure_media_url"))
        #expect(!built.stderr.contains("lint --fix"))
        let fcm = Fixtures.payloadsDirectory.appendingPathComponent("seed001-fcm-send.json").path
        let file = try await send(mock, ["--payload", fcm, "--token", MockAPNs.token("aa")])
        #expect(file.status == 1)
        #expect(file.stderr.contains("richpush lint --fix --output FIXED.json \(fcm)"))
    }

    @Test func anHTTPImageOnAHostAllowedWithAllowHTTPHostIsAWarningAndGoesOut() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let arguments = ["--title", "t", "--body", "b", "--image", "http://media.example.com/a.jpg", "--token", MockAPNs.token("ab")]
        let allowed = try await send(mock, arguments + ["--allow-http-host", "Media.Example.com"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(
            allowed.stderr.contains("warning insecure_media_url image-url: the media URL http://media.example.com/a.jpg is cleartext http, allowed"),
            "\(allowed.stderr)")
        #expect(try await mock.stats()["requests"] == .int(1))
        // Another host stays an error; nothing is sent.
        let other = try await send(mock, arguments + ["--allow-http-host", "cdn.example.net"])
        #expect(other.status == 1)
        #expect(other.stderr.contains("insecure_media_url"), "\(other.stderr)")
        #expect(try await mock.stats()["requests"] == .int(1))
    }

    @Test func aTrailingCommaIsRefusedEvenForADryRun() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let file = mock.directory.appendingPathComponent("comma.json")
        try Data(#"{"aps":{"alert":"a","mutable-content":1},"image-url":"https://x.example/a.jpg",}"#.utf8).write(to: file)
        let result = try await send(mock, ["--payload", file.path, "--dry-run"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("trailing comma"))
        #expect(result.stderr.contains("line 1, column 79"))
    }

    @Test func theUsageLineShowsKeyIDAsOptionalAndNoOptionsPlaceholder() async throws {
        let help = try await run(["--help"])
        let usage = help.stdout.components(separatedBy: "\n\n").first { $0.contains("USAGE") } ?? ""
        #expect(usage.contains("[--key-id KEYID]"))
        #expect(!usage.contains("[options]"))
        for name in ["--push-type", "--collapse-id", "--max-attempts", "--cert-key", "--dry-run", "--ca-file"] {
            #expect(usage.contains(name), "\(name)")
        }
    }
}
