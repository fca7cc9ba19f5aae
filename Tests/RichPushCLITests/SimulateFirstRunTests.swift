import Foundation
import RichPushTestSupport
import Testing

/// What a first-time user of `richpush simulate` runs into: bad payload files, bad folders,
/// standard input, failed receipts, the help text.
@Suite("richpush simulate, first run")
struct SimulateFirstRunTests {
    func richpush(_ arguments: [String], stdin: URL? = nil) async throws -> ChildProcess.Finished {
        let child = ChildProcess(Fixtures.richpushBinary.path, arguments)
        if let stdin { child.process.standardInput = try FileHandle(forReadingFrom: stdin) }
        return try await child.run(timeout: 60)
    }

    func json(_ stdout: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "\(stdout)")
    }

    static let badPayloads: [(String, Data, String)] = [
        ("not JSON", Data("notjson".utf8), "not valid JSON"),
        ("an empty file", Data(), "empty"),
        ("1 MB of nesting", Data((String(repeating: "[", count: 500_000) + String(repeating: "]", count: 500_000)).utf8), "not valid JSON"),
        ("a JSON array", Data(#"[{"aps": {"alert": "Hi"}}]"#.utf8), "not a JSON object"),
        ("aps a string", Data(#"{"aps": "hello"}"#.utf8), "`aps` must be a dictionary"),
        ("alert a number", Data(#"{"aps": {"alert": 42, "mutable-content": 1}}"#.utf8), "`aps.alert`"),
    ]

    @Test(
        "a payload that is not a JSON object, or has a malformed aps, goes through the host as the original with invalid_payload and a warning",
        arguments: 0..<badPayloads.count)
    func invalidPayloadThroughTheHost(_ index: Int) async throws {
        let (name, bytes, mentions) = Self.badPayloads[index]
        let dir = try Fixtures.temporaryDirectory("richpush-first-run")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("payload.json")
        try bytes.write(to: file)
        let run = try await richpush(["simulate", file.path, "--json"])
        #expect(run.status == 0, "\(name): \(run.stderr)")
        let object = try json(run.stdout)
        #expect(object["outcome"] as? String == "original", "\(name)")
        #expect(object["reason"] as? String == "invalid_payload", "\(name)")
        let content = try #require(object["content"] as? [String: Any])
        #expect(content["body"] as? String == "", "\(name): the default body is not applied to an unreadable payload")
        #if !canImport(UserNotifications)
        let host = try #require(object["host"] as? [String: Any], "\(name): run by the real extension in the host")
        #expect(host["handlerCalls"] as? Int == 1)
        #endif
        #expect(run.stderr.contains("warning: \(file.path) is not a valid payload"), "\(name): \(run.stderr)")
        #expect(run.stderr.contains(mentions), "\(name): \(run.stderr)")
    }

    @Test("the payload can come from standard input with -")
    func payloadFromStandardInput() async throws {
        let dir = try Fixtures.temporaryDirectory("richpush-first-run")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("payload.json")
        try Data(#"{"aps": {"alert": {"title": "From stdin", "body": "Hi"}, "mutable-content": 1}, "push_id": "s1"}"#.utf8).write(to: file)
        let run = try await richpush(["simulate", "-", "--json"], stdin: file)
        #expect(run.status == 0, "\(run.stderr)")
        let object = try json(run.stdout)
        #expect((object["content"] as? [String: Any])?["title"] as? String == "From stdin")
        #expect(object["pushId"] as? String == "s1")
    }

    @Test("a folder that cannot be written is a usage error naming the option", arguments: ["out", "state", "cache"])
    func unwritableFolders(_ option: String) async throws {
        let dir = try Fixtures.temporaryDirectory("richpush-first-run")
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = dir.appendingPathComponent("payload.json")
        try Data(#"{"aps": {"alert": "Hi", "mutable-content": 1}}"#.utf8).write(to: payload)
        let regularFile = dir.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: regularFile)
        for (folder, why) in [(regularFile.path, "not a folder"), ("/proc/richpush-x", "cannot be created")] {
            let run = try await richpush(["simulate", payload.path, "--\(option)", folder, "--json"])
            #expect(run.status == 64, "--\(option) \(folder): \(run.stderr)")
            #expect(run.stderr.contains("--\(option) \(folder)") && run.stderr.contains(why), "\(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
        let fresh = dir.appendingPathComponent("new/nested")
        let ok = try await richpush(["simulate", payload.path, "--\(option)", fresh.path, "--json"])
        #expect(ok.status == 0, "\(ok.stderr)")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: fresh.path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test("a missing payload file or a directory says so plainly", arguments: [("/nonexistent/payload.json", "no such file"), ("/tmp", "is a directory")])
    func unreadablePayloadPaths(_ path: String, _ says: String) async throws {
        let run = try await richpush(["simulate", path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot read the payload \(path): \(says)"), "\(run.stderr)")
        #expect(!run.stderr.contains("NSCocoaErrorDomain") && !run.stderr.contains(".."), "\(run.stderr)")
    }

    @Test("empty key paths are usage errors", arguments: ["media-key", "push-id-key"])
    func emptyKeyPaths(_ option: String) async throws {
        let run = try await richpush(["simulate", "p.json", "--\(option)", ""])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--\(option)") && run.stderr.contains("not a key path"), "\(run.stderr)")
    }

    @Test("a failed receipt says why, in JSON and in the summary")
    func receiptFailureReasons() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory("richpush-first-run")
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = dir.appendingPathComponent("payload.json")
        try Data(#"{"aps": {"alert": "Hi", "mutable-content": 1}, "push_id": "r1"}"#.utf8).write(to: payload)
        // The queued path (--state) too; a fresh state folder per run, or the second is a duplicate.
        func state() -> [String] { ["--state", dir.appendingPathComponent("state-\(UUID().uuidString)").path] }
        let cases: [(() -> [String], String)] = [
            ({ ["--receipts-url", server.url("/no-such-route")] }, "insecure_scheme"),
            ({ ["--receipts-url", server.url("/no-such-route"), "--allow-http-host", "127.0.0.1"] }, "HTTP 404"),
            ({ ["--receipts-url", server.url("/receipts-500"), "--allow-http-host", "127.0.0.1"] + state() }, "HTTP 500"),
        ]
        for (options, reason) in cases {
            let run = try await richpush(["simulate", payload.path, "--json"] + options())
            #expect(run.status == 0, "\(run.stderr)")
            let receipt = try #require(try json(run.stdout)["receipt"] as? [String: Any])
            #expect(receipt["status"] as? String == "failed")
            #expect((receipt["error"] as? String)?.contains(reason) == true, "\(reason): \(receipt)")
            let summary = try await richpush(["simulate", payload.path] + options())
            #expect(summary.stdout.contains("receipt     failed: ") && summary.stdout.contains(reason), "\(summary.stdout)")
        }
        let sent = try await richpush(["simulate", payload.path, "--json", "--receipts-url", server.url("/receipts"), "--allow-http-host", "127.0.0.1"])
        let receipt = try #require(try json(sent.stdout)["receipt"] as? [String: Any])
        #expect(receipt["status"] as? String == "sent")
        #expect(receipt["error"] is NSNull)
    }

    @Test("the log line on stderr is labelled, and the summary explains the memory figure")
    func labelledLogLineAndMemoryWording() async throws {
        let dir = try Fixtures.temporaryDirectory("richpush-first-run")
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = dir.appendingPathComponent("payload.json")
        try Data(#"{"aps": {"alert": "Hi", "mutable-content": 1}}"#.utf8).write(to: payload)
        let run = try await richpush(["simulate", payload.path])
        #expect(run.status == 0)
        let logLines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("richpush.log ") }
        #expect(logLines.count == 1, "\(run.stderr)")
        let line = try #require(logLines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst("richpush.log ".count).utf8)) as? [String: Any])
        #expect(object["event"] as? String == "richpush.notification")
        #expect(!run.stderr.split(separator: "\n").contains { $0.hasPrefix("{") }, "no unlabelled JSON on stderr")
        #if !canImport(UserNotifications)
        #expect(run.stdout.contains("for this whole Linux process"), "\(run.stdout)")
        #endif
    }

    @Test("--help shows the real receipts path, says [options], and uses no internal jargon")
    func helpText() async throws {
        let run = try await richpush(["simulate", "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("http://127.0.0.1:8080/v1/receipts"))
        #expect(!run.stdout.contains("8080/receipts"))
        #expect(run.stdout.contains("[options]"))
        for option in ["--media-key", "--keys", "--cache", "--state", "--push-id-key"] { #expect(run.stdout.contains(option), "\(option)") }
        for jargon in ["issue", "article 000"] { #expect(!run.stdout.lowercased().contains(jargon), "\(jargon)") }
    }
}
