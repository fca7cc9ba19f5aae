import Foundation
import RichPushTestSupport
import Testing

/// A write to standard output or to --output that fails (a full device: /dev/full) is reported on
/// stderr with exit status 1, never lost behind a success status; a closed pipe stops quietly.
@Suite struct StandardOutputFailureTests {
    static let full =
        "cannot write standard output: no space left on device; free some space where standard output goes, or redirect it to another file (> FILE)"

    /// Runs the built binary with standard output on `/dev/full` (through `sh`, which redirects).
    func richpushToFullDevice(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess("/bin/sh", ["-c", #"exec "$0" "$@" > /dev/full"#, Fixtures.richpushBinary.path] + arguments).run(timeout: 60)
    }

    /// The files the commands read, in a fresh folder.
    func files() throws -> (dir: URL, payload: URL, plaintext: URL, keys: URL) {
        let dir = try Fixtures.temporaryDirectory("stdout-full")
        let payload = dir.appendingPathComponent("p.json")
        try Data(#"{"aps": {"alert": {"title": "Hi", "body": "there"}, "badge": "3"}}"#.utf8).write(to: payload)
        let plaintext = dir.appendingPathComponent("pt.json")
        try Data(#"{"title": "t", "body": "b"}"#.utf8).write(to: plaintext)
        let keys = dir.appendingPathComponent("keys.json")
        try Data(#"{"k-1": "\#(Data(repeating: 7, count: 32).base64EncodedString())"}"#.utf8).write(to: keys)
        return (dir, payload, plaintext, keys)
    }

    @Test func theDeviceIsFull() throws {
        // The tests below need the real device (a character device whose writes fail with ENOSPC).
        var info = stat()
        #expect(stat("/dev/full", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR, "/dev/full is not the character device 1,7")
    }

    @Test("lint --fix, lint --json, encrypt, simulate --json, --help, --version to a full stdout: exit 1 and the message")
    func everyCommandReportsAFullStandardOutput() async throws {
        let f = try files()
        defer { try? FileManager.default.removeItem(at: f.dir) }
        let cases: [([String], String)] = [
            (["lint", f.payload.path, "--fix"], "richpush lint: " + Self.full),
            (["lint", f.payload.path, "--json"], "richpush lint: " + Self.full),
            (["encrypt", "--key", f.keys.path, "--kid", "k-1", f.plaintext.path], "richpush encrypt: " + Self.full),
            (["simulate", f.payload.path, "--json", "--out", f.dir.appendingPathComponent("out").path], "richpush simulate: " + Self.full),
            (["lint", "--help"], "richpush lint: " + Self.full),
            (["--version"], "richpush: " + Self.full),
        ]
        for (arguments, message) in cases {
            let run = try await richpushToFullDevice(arguments)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").last.map(String.init) == message, "\(arguments)")
        }
    }

    @Test("lint --fix --output /dev/full: exit 1, and the device is written in place, not replaced by a file")
    func outputToAFullDevice() async throws {
        let f = try files()
        defer { try? FileManager.default.removeItem(at: f.dir) }
        let run = try await ChildProcess(Fixtures.richpushBinary.path, ["lint", f.payload.path, "--fix", "--output", "/dev/full"]).run(timeout: 60)
        #expect(run.status == 1)
        #expect(
            run.stderr.split(separator: "\n").last.map(String.init)
                == "richpush lint: cannot write the fixed payload to /dev/full: no space left on device; free some space, or give another path to --output")
        var info = stat()
        #expect(stat("/dev/full", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
        // A device that takes the bytes (/dev/null) is written in place, exit 0 (the fix leaves a warning only).
        let null = try await ChildProcess(Fixtures.richpushBinary.path, ["lint", f.payload.path, "--fix", "--output", "/dev/null"]).run(timeout: 60)
        #expect(null.status == 0, "\(null.stderr)")
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
    }
}
