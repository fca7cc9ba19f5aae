import Foundation
import RichPushCore
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// Issue 11: numbers and strings go through `lint --fix` and `encrypt` byte for byte, and an
/// unreadable standard input is a clear error (exit 1), never a crash.
@Suite struct LosslessCommandTests {
    /// Compact with sorted keys, so the expected output is the input with only the fix applied.
    static let payload =
        #"{"aps":{"alert":{"body":"\#u{FEFF}本文\ud83d","title":"t\udc00"},"badge":7,"mutable-content":"1"},"big":18446744073709551615,"d":0.1000,"e":1e400,"image-url":"https://img.example.com/a.png","neg":-18446744073709551616}"#

    func richpush(_ arguments: [String], stdin: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        if let stdin {
            return try await ChildProcess("/bin/sh", ["-c", "\"$0\" \"$@\" " + stdin, Fixtures.richpushBinary.path] + arguments).run(timeout: 60)
        }
        return try await ChildProcess(Fixtures.richpushBinary.path, arguments).run(timeout: 60)
    }

    @Test func lintFixChangesOnlyWhatItFixesAndItsOutputPassesLint() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        let output = dir.appendingPathComponent("out.json")
        try Data(Self.payload.utf8).write(to: input)
        let run = try await richpush(["lint", "--fix", "--output", output.path, input.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("fixed mutable_content_string"))
        let expected = Self.payload.replacingOccurrences(of: #""mutable-content":"1""#, with: #""mutable-content":1"#) + "\n"
        #expect(try Data(contentsOf: output) == Data(expected.utf8))
        let again = try await richpush(["lint", output.path])
        #expect(again.status == 0, "\(again.stdout)")
        // No finding about the payload's form is left; the one line is the extension lookup's
        // warning that this payload carries no push id (so no receipt).
        let lines = again.stdout.split(separator: "\n")
        #expect(lines.count == 1, "\(again.stdout)")
        #expect(lines.first?.hasPrefix("warning no_push_id: ") == true, "\(again.stdout)")
    }

    @Test func encryptKeepsThePlaintextBytesInsideTheCiphertextAndDecryptGivesThemBack() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = Data((0..<32).map { UInt8($0) })
        let keys = dir.appendingPathComponent("keys.json")
        try Data(#"{"k-1": "\#(key.base64EncodedString())"}"#.utf8).write(to: keys)
        let plaintext = #"{"big":18446744073709551615,"body":"\#u{FEFF}x\ud800","d":0.1000,"e":1e400,"title":"t"}"#
        let pt = dir.appendingPathComponent("pt.json")
        try Data(plaintext.utf8).write(to: pt)
        let run = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-1", pt.path])
        #expect(run.status == 0, "\(run.stderr)")
        let envelopeJSON = try RichPushJSONValue.parse(Data(run.stdout.utf8))
        // The ciphertext, opened by Python's cryptography: exactly the plaintext's bytes.
        let iv = try #require(envelopeJSON["iv"]?.stringValue), ct = try #require(envelopeJSON["ct"]?.stringValue)
        let tag = try #require(envelopeJSON["tag"]?.stringValue)
        let python = """
            import base64, sys
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            k, iv, ct, tag = (base64.b64decode(a) for a in sys.argv[1:5])
            sys.stdout.write(base64.b64encode(AESGCM(k).decrypt(iv, ct + tag, None)).decode())
            """
        let opened = try await ChildProcess("python3", ["-c", python, key.base64EncodedString(), iv, ct, tag]).run(timeout: 30)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(Data(base64Encoded: opened.stdout) == Data(plaintext.utf8))
        // And the extension's own decryption gives the same value back.
        let envelope = try EncryptedEnvelope(json: envelopeJSON)
        let decrypted = try PayloadCipher.decrypt(envelope, keys: FileKeyProvider(contentsOf: keys))
        #expect(RichPushJSONValue.object(decrypted).jsonData() == Data(plaintext.utf8))
    }

    @Test(arguments: ["lint", "simulate", "send"])
    func anUnreadableStandardInputIsAClearErrorNotACrash(command: String) async throws {
        let arguments =
            command == "send" ? ["send", "--payload", "-", "--token", String(repeating: "a", count: 64), "--dry-run", "--topic", "t"] : [command, "-"]
        let closed = try await richpush(arguments, stdin: "<&-")
        #expect(closed.status == 1, "\(closed.stderr)")
        #expect(closed.stderr.contains("standard input is closed"))
        let directory = try await richpush(arguments, stdin: "< /")
        #expect(directory.status == 1, "\(directory.stderr)")
        #expect(directory.stderr.contains("standard input is a directory"))
        // EIO: a background process group reading its controlling terminal with SIGTTIN ignored.
        let python = """
            import os, pty, signal, sys
            out, args = sys.argv[1], sys.argv[2:]
            pid, fd = pty.fork()
            if pid == 0:
                g = os.fork()
                if g == 0:
                    os.setpgid(0, 0)
                    signal.signal(signal.SIGTTIN, signal.SIG_IGN)
                    err = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                    os.dup2(err, 2)
                    os.execv(args[0], args)
                _, status = os.waitpid(g, 0)
                os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
            try:
                while os.read(fd, 4096):
                    pass
            except OSError:
                pass
            _, status = os.waitpid(pid, 0)
            sys.stdout.write(f"{os.waitstatus_to_exitcode(status)}\\n{open(out).read()}")
            """
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let eio = try await ChildProcess("python3", ["-c", python, dir.appendingPathComponent("stderr").path, Fixtures.richpushBinary.path] + arguments).run(
            timeout: 60)
        #expect(eio.stdout.hasPrefix("1\n"), "\(eio.stdout) \(eio.stderr)")
        #expect(eio.stdout.contains("input/output error"), "\(eio.stdout)")
    }
}
