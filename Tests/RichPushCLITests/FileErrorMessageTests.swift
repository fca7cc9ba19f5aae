import Foundation
import RichPushCLI
import RichPushTestSupport
import Testing

/// Every command says the same thing about a file it cannot read or write: the path, what is
/// wrong and what to do — never Foundation's "The operation could not be completed".
@Suite struct FileErrorMessageTests {
    func richpush(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess(Fixtures.richpushBinary.path, arguments, environment: environment).run(timeout: 60)
    }

    static let token = String(repeating: "ab", count: 32)

    @Test(
        "a missing or unwritable file is named with the reason and the fix",
        arguments: [
            (
                ["send", "--key", "nokey.p8", "--team-id", "ABCDE12345", "--topic", "com.example.app", "--token", token, "--title", "t", "--body", "b"],
                "richpush send: cannot read the APNs key nokey.p8: no such file or directory; check the path given to --key"
            ),
            (
                [
                    "send", "--key", "/nonexistent/AuthKey_ABC123DEFG.p8", "--team-id", "ABCDE12345", "--topic", "com.example.app", "--token", token, "--title",
                    "t", "--body", "b", "--ca-file", "/nonexistent/ca.pem",
                ],
                "richpush send: cannot read the CA file /nonexistent/ca.pem: no such file or directory; check the path given to --ca-file"
            ),
            (
                [
                    "send", "--key", "/nonexistent/AuthKey_ABC123DEFG.p8", "--team-id", "ABCDE12345", "--topic", "com.example.app", "--tokens",
                    "/nonexistent/tokens.txt", "--title", "t", "--body", "b",
                ],
                "richpush send: cannot read the tokens file /nonexistent/tokens.txt: no such file or directory; check the path given to --tokens, or give - to read standard input"
            ),
            (
                ["send", "--fcm-service-account", "/nonexistent/sa.json", "--token", "fcm-token", "--title", "t", "--body", "b"],
                "richpush send: cannot read the FCM service-account file /nonexistent/sa.json: no such file or directory; check the path given to --fcm-service-account, or download it"
            ),
            (
                ["encrypt", "--key", "nokeys.json", "--kid", "k-2", "/nonexistent/plain.json"],
                "richpush encrypt: cannot read the key file nokeys.json: no such file or directory; check the path given to --key"
            ),
            (
                ["simulate", "--keys", "/nonexistent/keys.json", "/nonexistent/payload.json"],
                "richpush simulate: cannot read the key file /nonexistent/keys.json: no such file or directory; check the path given to --keys"
            ),
            (
                ["lint", "/nonexistent/payload.json"],
                "richpush lint: cannot read the payload /nonexistent/payload.json: no such file or directory; check the path, or give - to read standard input"
            ),
        ])
    func unreadableFiles(_ arguments: [String], _ message: String) async throws {
        let run = try await richpush(arguments)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix(message), "\(run.stderr)")
        #expect(!run.stderr.contains("could not be completed") && !run.stderr.contains("NSCocoaErrorDomain"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// `send --key nokey.p8` without `--key-id`: the missing file comes first, not its name.
    @Test func aMissingKeyIsReportedBeforeItsFileName() async throws {
        let run = try await richpush([
            "send", "--key", "nokey.p8", "--team-id", "ABCDE12345", "--topic", "com.example.app", "--token", Self.token, "--title", "t", "--body", "b",
        ])
        #expect(run.status == 1)
        #expect(run.stderr.contains("no such file or directory"))
        #expect(!run.stderr.contains("--key-id"), "\(run.stderr)")
        // From the environment, the variable is named instead of the option.
        let env = try await richpush(
            ["send", "--team-id", "ABCDE12345", "--topic", "com.example.app", "--token", Self.token, "--title", "t", "--body", "b"],
            environment: ["RICHPUSH_APNS_KEY": "/nonexistent/env.p8"])
        #expect(
            env.stderr.contains("cannot read the APNs key /nonexistent/env.p8: no such file or directory; check the path given to RICHPUSH_APNS_KEY"),
            "\(env.stderr)")
    }

    @Test func lintOutputIntoAMissingFolderOrOntoAFolderSaysWhatToDo() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = dir.appendingPathComponent("p.json")
        try Data(#"{"aps":{"alert":"a","mutable-content":"1"},"image-url":"https://example.com/a.jpg"}"#.utf8).write(to: payload)
        let missing = dir.appendingPathComponent("no/such/folder")
        let run = try await richpush(["lint", "--fix", "--output", missing.appendingPathComponent("fixed.json").path, payload.path])
        #expect(run.status == 1)
        #expect(
            run.stderr.contains(
                "cannot write the fixed payload to \(missing.path)/fixed.json: the folder \(missing.path) does not exist; create it (mkdir -p \(missing.path)) or give another path to --output"
            ),
            "\(run.stderr)")
        #expect(!run.stderr.contains("could not be completed"))
        let folder = try await richpush(["lint", "--fix", "--output", dir.path, payload.path])
        #expect(folder.status == 1)
        #expect(folder.stderr.contains("cannot write the fixed payload to \(dir.path): is a directory; give a file name, not a folder"), "\(folder.stderr)")
        // Nothing was written in either case, and the payload is untouched.
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        #expect(try String(contentsOf: payload, encoding: .utf8).contains(#""mutable-content":"1""#))
    }

    @Test func encryptNamesTheBasePayloadAndThePlaintext() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keys = dir.appendingPathComponent("keys.json")
        try Data(#"{"k-2": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="}"#.utf8).write(to: keys)
        let plaintext = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-2", "/nonexistent/plain.json"])
        #expect(plaintext.status == 1)
        #expect(
            plaintext.stderr.contains("cannot read the plaintext /nonexistent/plain.json: no such file or directory; check the path"), "\(plaintext.stderr)")
        let plain = dir.appendingPathComponent("plain.json")
        try Data(#"{"title": "t", "body": "b"}"#.utf8).write(to: plain)
        let base = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-2", plain.path, "--payload", dir.path])
        #expect(base.status == 1)
        #expect(base.stderr.contains("cannot read the base payload \(dir.path): is a directory; give a file, not a folder"), "\(base.stderr)")
    }
}

/// Unknown options: a suggestion only when it is close.
@Suite struct OptionSuggestionTests {
    static let options: [ParsedArguments.Option] = [
        .value("deadline", "SECONDS", help: ""), .value("out", "DIR", help: ""), .value("title", "TEXT", help: ""),
        .flag("dry-run", help: ""), .value("max-attempts", "N", help: ""), .value("media-key", "PATH", help: ""),
    ]

    func message(_ arguments: [String]) -> String {
        do {
            _ = try ParsedArguments(arguments, options: Self.options, command: "test")
            return "parsed"
        } catch let error as UsageError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test(
        "close names get a suggestion",
        arguments: [
            ("--dedline", "deadline"),  // one letter missing
            ("--titel", "title"),  // two letters swapped
            ("--dry", "dry-run"),  // an abbreviation of one option
            ("--max-attemps", "max-attempts"),
            ("--media-ky", "media-key"),
        ])
    func close(_ typed: String, _ suggested: String) {
        #expect(message([typed, "x"]) == "unknown option '\(typed)' (did you mean '--\(suggested)'?)")
    }

    @Test("far names get none", arguments: ["--bogus", "--o", "--xyz", "--me", "--verbose"])
    func far(_ typed: String) {
        #expect(message([typed, "x"]) == "unknown option '\(typed)'")
    }

    @Test func simulateBogusSuggestsNothingFromTheCommandLine() async throws {
        let run = try await ChildProcess(Fixtures.richpushBinary.path, ["simulate", "--bogus", "x.json"]).run(timeout: 60)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("richpush simulate: unknown option '--bogus'\n"), "\(run.stderr)")
        let close = try await ChildProcess(Fixtures.richpushBinary.path, ["simulate", "--dedline", "3", "x.json"]).run(timeout: 60)
        #expect(close.stderr.contains("(did you mean '--deadline'?)"))
    }
}
