import Foundation
@_spi(RichPushInternal) import RichPushCore
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one message for a file that cannot be read or written.
@Suite struct FileProblemTests {
    @Test func readingAMissingFileNamesThePathTheReasonAndTheOption() {
        let error = FileProblem.error(.read, path: "nokey.p8", what: "the APNs key", option: "--key", errno: ENOENT)
        #expect(error.code == .io)
        #expect(error.message == "cannot read the APNs key nokey.p8: no such file or directory; check the path given to --key")
        let bare = FileProblem.error(.read, path: "p.json", errno: ENOENT, alternative: "give - to read standard input")
        #expect(bare.message == "cannot read p.json: no such file or directory; check the path, or give - to read standard input")
    }

    @Test func writingIntoAMissingFolderSaysToCreateIt() {
        let error = FileProblem.error(.write, path: "/nope/out/fixed.json", what: "the fixed payload", option: "--output", errno: ENOENT)
        #expect(
            error.message
                == "cannot write the fixed payload to /nope/out/fixed.json: the folder /nope/out does not exist; create it (mkdir -p /nope/out) or give another path to --output"
        )
        let relative = FileProblem.error(.write, path: "out/x.json", errno: ENOENT)
        #expect(relative.message == "cannot write out/x.json: the folder out does not exist; create it (mkdir -p out) or give another path")
    }

    @Test(
        "each reason has its own advice",
        arguments: [
            (FileProblem.Access.read, EACCES, "cannot read f: permission denied; check its permissions (ls -l f)"),
            (.read, EISDIR, "cannot read f: is a directory; give a file, not a folder"),
            (.read, ENOTDIR, "cannot read f: not a directory; a part of the path is a file, not a folder: check the path"),
            (.write, EACCES, "cannot write f: permission denied; check the folder's permissions, or give another path"),
            (.write, EROFS, "cannot write f: read-only file system; write somewhere else"),
            (.write, ENOSPC, "cannot write f: no space left on device; free some space, or give another path"),
        ])
    func advice(_ access: FileProblem.Access, _ code: Int32, _ message: String) {
        #expect(FileProblem.error(access, path: "f", errno: code).message == message)
    }

    /// What Foundation throws on Linux (and Darwin) carries the POSIX reason underneath.
    @Test func foundationErrorsAreReadForTheirErrno() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-fileproblem-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("missing.json").path
        #expect(throws: RichPushError.self) { try FileProblem.read(missing, what: "the payload") }
        do {
            _ = try FileProblem.read(missing, what: "the payload")
        } catch let error as RichPushError {
            #expect(error.message == "cannot read the payload \(missing): no such file or directory; check the path")
        }
        do {
            _ = try FileProblem.read(dir.path)
        } catch let error as RichPushError {
            #expect(error.message == "cannot read \(dir.path): is a directory; give a file, not a folder")
        }
        do {
            try FileProblem.write(Data("x".utf8), to: dir.appendingPathComponent("a/b.json").path, what: "the result")
            Issue.record("wrote into a missing folder")
        } catch let error as RichPushError {
            #expect(error.message.hasPrefix("cannot write the result to \(dir.path)/a/b.json: the folder \(dir.path)/a does not exist"))
        }
        let written = dir.appendingPathComponent("ok.json").path
        try FileProblem.write(Data("{}".utf8), to: written)
        #expect(try FileProblem.read(written) == Data("{}".utf8))
        #expect(FileProblem.reason(of: CocoaError(.fileReadNoSuchFile)) == "no such file or directory")
    }
}
