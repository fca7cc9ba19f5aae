import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// `richpush lint`, run as the built binary.
@Suite struct LintCommandTests {
    func lint(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess(Fixtures.richpushBinary.path, ["lint"] + arguments).run(timeout: 60)
    }

    @Test func aCleanArticlePayloadPrintsOneOkLineOnStandardErrorAndExitsZero() async throws {
        // Article 000's payload: its media and its push id are found, so nothing to warn about.
        let path = Fixtures.payloadsDirectory.appendingPathComponent("seed000-image-and-stats.json").path
        let run = try await lint([path])
        #expect(run.status == 0)
        #expect(run.stdout.isEmpty)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("richpush lint: \(path): ok, no findings (") == true, "\(run.stderr)")
        // …and what the extension would use, on the same line.
        #expect(
            lines.first?.hasSuffix(
                " of 4096 bytes); the extension would use media https://media.example.com/image/2016/12/04/3113/2018/09/28/trim_153813426461775700_450x300.jpg (aps.alert.image), push id 2018001 (aps.alert.push_id), no known vendor's payload"
            ) == true, "\(run.stderr)")
        // --json stays machine-readable: nothing on either stream for a clean payload.
        let json = try await lint(["--json", path])
        #expect(json.status == 0)
        #expect(json.stdout.isEmpty && json.stderr.isEmpty, "\(json.stdout)\(json.stderr)")
        // --fix: the fixed payload alone on stdout, the ok line on stderr.
        let fixed = try await lint(["--fix", path])
        #expect(fixed.status == 0)
        #expect(try RichPushJSONValue.parseStrictly(Data(fixed.stdout.utf8)).objectValue != nil)
        #expect(fixed.stderr.contains("ok, no findings"))
    }

    @Test func theFCMLegacyPayloadIsAnErrorNamedOnOneLine() async throws {
        let run = try await lint([Fixtures.payloadsDirectory.appendingPathComponent("seed001-fcm-send.json").path])
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(run.stdout)")
        #expect(lines.first?.hasPrefix("error fcm_legacy_mutable_content notification.mutable_content:") == true)
        // Read as FCM delivers it, the media is found; it has no push id.
        #expect(lines.last?.hasPrefix("warning no_push_id: ") == true)
        #expect(run.stderr.contains("the extension would use media https://img.example.com/TenpoLogos/4/"), "\(run.stderr)")
    }

    @Test func aVendorPayloadTheExtensionWouldNotReadIsAWarningNamingTheKeysAndTheVendor() async throws {
        // Before issue 18: "ok, no findings" for a OneSignal payload the extension did not attach.
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("payload.json")
        try Data(#"{"aps": {"alert": "Sale", "mutable-content": 1}, "custom": {"i": "5f2b"}, "data": {"picture": "https://media.example.com/p.jpg"}}"#.utf8)
            .write(to: file)
        let run = try await lint([file.path])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("warning no_media_url: the RichPush extension would find no media URL (looked at aps.alert.image"), "\(run.stdout)")
        #expect(run.stdout.contains("recognised a OneSignal payload (custom.i)"))
        #expect(run.stderr.contains("no media URL, push id 5f2b (custom.i), OneSignal payload"), "\(run.stderr)")
        // The same keys as the Info.plist: --media-key is tried before the defaults.
        let keyed = try await lint([file.path, "--media-key", "data.picture"])
        #expect(keyed.stdout.isEmpty, "\(keyed.stdout)")
        #expect(keyed.stderr.contains("media https://media.example.com/p.jpg (data.picture), push id 5f2b (custom.i)"), "\(keyed.stderr)")
    }

    @Test func fixWritesAPayloadThatLintsCleanToTheOutputFile() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        let output = dir.appendingPathComponent("out.json")
        try Data(#"{"aps":{"alert":{"title":"t"},"mutable-content":"1"},"image-url":"https://img.example.com/a.png"}"#.utf8).write(to: input)
        let run = try await lint(["--fix", "--output", output.path, input.path])
        #expect(run.status == 0)
        #expect(run.stderr.contains("fixed mutable_content_string"))
        let fixed = try RichPushJSONValue.parse(try Data(contentsOf: output))
        #expect(fixed["aps"]?["mutable-content"] == .int(1))
        #expect(try await self.lint([output.path]).status == 0)
    }

    @Test func fixWithoutOutputPrintsThePayloadOnStdout() async throws {
        let run = try await lint(["--fix", Fixtures.payloadsDirectory.appendingPathComponent("seed001-fcm-send.json").path])
        #expect(run.status == 0)
        let fixed = try RichPushJSONValue.parse(Data(run.stdout.utf8))
        #expect(fixed["aps"]?["mutable-content"] == .int(1))
        #expect(fixed["notification"] == nil)
    }

    @Test func anErrorThatCannotBeFixedKeepsTheExitStatusNonZero() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        try Data(#"{"aps":{"alert":"a","mutable-content":1},"url":"http://example.com/a.jpg"}"#.utf8).write(to: input)
        let run = try await lint(["--fix", input.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("error insecure_media_url url:"))
    }

    @Test func anAllowedHTTPHostIsAWarningWithAllowHTTPHostOrTheSettingsAllowedHTTPHosts() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        try Data(#"{"aps":{"alert":"a","mutable-content":1},"url":"http://media.example.com/a.jpg","push_id":"p1"}"#.utf8).write(to: input)
        let plist = dir.appendingPathComponent("Info.plist")
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>RichPush</key><dict>
            <key>AllowedHTTPHosts</key><array><string>media.example.com</string></array>
            </dict></dict></plist>
            """.utf8
        ).write(to: plist)
        for options in [["--allow-http-host", "MEDIA.example.com"], ["--settings", plist.path]] {
            let run = try await lint(options + [input.path])
            #expect(run.status == 0, "\(options): \(run.stdout) \(run.stderr)")
            #expect(
                run.stdout.contains("warning insecure_media_url url: the media URL http://media.example.com/a.jpg is cleartext http, allowed for this host"),
                "\(run.stdout)")
        }
        let other = try await lint(["--allow-http-host", "cdn.example.net", input.path])
        #expect(other.status == 1)
        #expect(other.stdout.contains("error insecure_media_url url:"), "\(other.stdout)")
    }

    @Test func aMissingFileIsAClearError() async throws {
        let run = try await lint(["/nonexistent/payload.json"])
        #expect(run.status == 1)
        #expect(
            run.stderr.contains(
                "cannot read the payload /nonexistent/payload.json: no such file or directory; check the path, or give - to read standard input"),
            "\(run.stderr)")
    }

    func write(_ text: String, in dir: URL) throws -> URL {
        let file = dir.appendingPathComponent("payload.json")
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test func aTrailingCommaIsAnErrorNamingLineAndColumn() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try write("{\"aps\":{\"alert\":\"a\",\"mutable-content\":1},\n \"image-url\":\"https://x.example/a.jpg\",}", in: dir)
        let run = try await lint([file.path])
        #expect(run.status == 1)
        #expect(run.stdout.contains("error invalid_payload"))
        #expect(run.stdout.contains("line 2, column 39"))
        #expect(run.stdout.contains("trailing comma"))
        let fix = try await lint(["--fix", file.path])
        #expect(fix.status == 1)
        #expect(fix.stdout.isEmpty)
    }

    @Test func aDuplicateKeyIsAnError() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try await lint([try write(#"{"aps":{"alert":"a"},"aps":{"alert":"b"}}"#, in: dir).path])
        #expect(run.status == 1)
        #expect(run.stdout.contains("duplicate key \"aps\""))
    }

    @Test func fixTurnsAnAPSStringIntoTheAlertInsteadOfDroppingIt() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try await lint(["--fix", try write(#"{"aps":"hello"}"#, in: dir).path])
        #expect(run.status == 0)
        let fixed = try RichPushJSONValue.parse(Data(run.stdout.utf8))
        #expect(fixed["aps"]?["alert"] == .string("hello"))
    }

    @Test func fixLeavesAnAPSOfAnotherTypeAndExitsNonZero() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try await lint(["--fix", try write(#"{"aps":["hello"]}"#, in: dir).path])
        #expect(run.status == 1)
        #expect(!run.stderr.contains("fixed"))
        let fixed = try RichPushJSONValue.parse(Data(run.stdout.utf8))
        #expect(fixed["aps"] == .array([.string("hello")]))
    }
}
