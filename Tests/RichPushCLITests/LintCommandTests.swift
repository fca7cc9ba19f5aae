import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// `richpush lint`, run as the built binary.
@Suite struct LintCommandTests {
    func lint(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess(Fixtures.richpushBinary.path, ["lint"] + arguments).run(timeout: 60)
    }

    @Test func aCleanArticlePayloadPrintsNothingAndExitsZero() async throws {
        let run = try await lint([Fixtures.payloadsDirectory.appendingPathComponent("seed003-url.json").path])
        #expect(run.status == 0)
        #expect(run.stdout.isEmpty)
    }

    @Test func theFCMLegacyPayloadIsAnErrorNamedOnOneLine() async throws {
        let run = try await lint([Fixtures.payloadsDirectory.appendingPathComponent("seed001-fcm-send.json").path])
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("error fcm_legacy_mutable_content notification.mutable_content:") == true)
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
        let fixed = try JSONValue.parse(try Data(contentsOf: output))
        #expect(fixed["aps"]?["mutable-content"] == .int(1))
        #expect(try await self.lint([output.path]).status == 0)
    }

    @Test func fixWithoutOutputPrintsThePayloadOnStdout() async throws {
        let run = try await lint(["--fix", Fixtures.payloadsDirectory.appendingPathComponent("seed001-fcm-send.json").path])
        #expect(run.status == 0)
        let fixed = try JSONValue.parse(Data(run.stdout.utf8))
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

    @Test func aMissingFileIsAClearError() async throws {
        let run = try await lint(["/nonexistent/payload.json"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot read /nonexistent/payload.json"))
    }
}
