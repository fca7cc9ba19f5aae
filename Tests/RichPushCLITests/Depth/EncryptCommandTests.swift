import Foundation
import RichPushTestSupport
import Testing

/// `richpush encrypt`: the envelope a provider puts in a payload, and its usage errors.
@Suite("richpush encrypt", .serialized)
struct EncryptCommandTests {
    func richpush(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess(Fixtures.richpushBinary.path, arguments).run(timeout: 60)
    }

    @Test func itPrintsAVersion2EnvelopeWithA12ByteIVAndA16ByteTag() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keys = dir.appendingPathComponent("keys.json")
        try Data(#"{"k-2": "\#(Data(repeating: 3, count: 32).base64EncodedString())"}"#.utf8).write(to: keys)
        let pt = dir.appendingPathComponent("pt.json")
        try Data(#"{"title": "t", "body": "b"}"#.utf8).write(to: pt)
        let run = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-2", pt.path])
        #expect(run.status == 0, "\(run.stderr)")
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(envelope["v"] as? Int == 2)
        #expect(envelope["kid"] as? String == "k-2")
        #expect(Data(base64Encoded: envelope["iv"] as? String ?? "")?.count == 12)
        #expect(Data(base64Encoded: envelope["tag"] as? String ?? "")?.count == 16)
        #expect(Data(base64Encoded: envelope["ct"] as? String ?? "")?.count == #"{"body":"b","title":"t"}"#.utf8.count)
    }

    @Test func badUseSaysWhatToFix() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keys = dir.appendingPathComponent("keys.json")
        try Data(#"{"k-1": "\#(Data(repeating: 1, count: 32).base64EncodedString())"}"#.utf8).write(to: keys)
        let pt = dir.appendingPathComponent("pt.json")
        try Data("[1]".utf8).write(to: pt)

        let noKey = try await richpush(["encrypt", "--kid", "k-1", pt.path])
        #expect(noKey.status == 64)
        #expect(noKey.stderr.contains("--key FILE"))
        let unknownKid = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-9", pt.path])
        #expect(unknownKid.status == 1)
        #expect(unknownKid.stderr.contains("k-9") && unknownKid.stderr.contains("k-1"))
        #expect(!unknownKid.stderr.contains(Data(repeating: 1, count: 32).base64EncodedString()))
        let notObject = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-1", pt.path])
        #expect(notObject.status == 1)
        #expect(notObject.stderr.contains("JSON object"))
        let help = try await richpush(["encrypt", "--help"])
        #expect(help.status == 0)
        for option in ["--key", "--kid", "--payload"] { #expect(help.stdout.contains(option)) }
    }

    @Test func aJSONErrorNamesTheFileAndATooLargePlaintextIsRefusedWithTheLimit() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keys = dir.appendingPathComponent("keys.json")
        try Data(#"{"k-1": "\#(Data(repeating: 1, count: 32).base64EncodedString())"}"#.utf8).write(to: keys)
        let pt = dir.appendingPathComponent("pt.json")
        try Data(#"{"title": "t"}"#.utf8).write(to: pt)
        let base = dir.appendingPathComponent("base.json")
        try Data(#"{"aps": {"alert": "New message",}}"#.utf8).write(to: base)

        let badBase = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-1", pt.path, "--payload", base.path])
        #expect(badBase.status == 1)
        #expect(badBase.stderr.contains("--payload file \(base.path)"))
        #expect(badBase.stderr.contains("trailing comma"))

        try Data(#"{"title": "t" "body": "b"}"#.utf8).write(to: pt)
        let badPlaintext = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-1", pt.path])
        #expect(badPlaintext.status == 1)
        #expect(badPlaintext.stderr.contains("PLAINTEXT.json file \(pt.path)"))

        let big = #"{"body": ""# + String(repeating: "x", count: 10_000) + #""}"#
        try Data(big.utf8).write(to: pt)
        let tooLarge = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-1", pt.path])
        #expect(tooLarge.status == 1)
        #expect(tooLarge.stdout.isEmpty)
        #expect(tooLarge.stderr.contains("10011 bytes"))
        #expect(tooLarge.stderr.contains("4096"))
    }

    /// The push id stays in the clear by default, so a device that cannot decrypt still sends its
    /// receipt; --encrypt-push-id keeps it inside; a BASE push id that differs is refused.
    @Test func thePushIDStaysInTheClearSoAFailedDecryptionStillSendsItsReceipt() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keys = dir.appendingPathComponent("keys.json")
        try Data(#"{"k-2": "\#(Data(repeating: 7, count: 32).base64EncodedString())"}"#.utf8).write(to: keys)
        let otherKeys = dir.appendingPathComponent("other.json")
        try Data(#"{"k-2": "\#(Data(repeating: 8, count: 32).base64EncodedString())"}"#.utf8).write(to: otherKeys)
        let secret = dir.appendingPathComponent("secret.json")
        try Data(#"{"title": "Your order shipped", "body": "Parcel 4711", "push_id": "o-4711"}"#.utf8).write(to: secret)
        let generic = dir.appendingPathComponent("generic.json")
        try Data(#"{"aps": {"alert": {"title": "New message", "body": "Open the app"}, "mutable-content": 1}}"#.utf8).write(to: generic)

        let clear = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-2", secret.path, "--payload", generic.path])
        #expect(clear.status == 0, "\(clear.stderr)")
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(clear.stdout.utf8)) as? [String: Any])
        #expect(payload["push_id"] as? String == "o-4711")
        let envelope = try #require(payload["enc"] as? [String: Any])
        #expect(Data(base64Encoded: envelope["ct"] as? String ?? "")?.count == #"{"body":"Parcel 4711","title":"Your order shipped"}"#.utf8.count)

        let inside = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-2", secret.path, "--payload", generic.path, "--encrypt-push-id"])
        let hidden = try #require(try JSONSerialization.jsonObject(with: Data(inside.stdout.utf8)) as? [String: Any])
        #expect(hidden["push_id"] == nil)

        let bare = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-2", secret.path])
        #expect(bare.status == 0)
        #expect(bare.stderr.contains(#""push_id": "o-4711""#))

        let conflicting = dir.appendingPathComponent("conflict.json")
        try Data(#"{"aps": {"alert": "x", "mutable-content": 1}, "push_id": "o-9"}"#.utf8).write(to: conflicting)
        let clash = try await richpush(["encrypt", "--key", keys.path, "--kid", "k-2", secret.path, "--payload", conflicting.path])
        #expect(clash.status == 1)
        #expect(clash.stderr.contains("o-9") && clash.stderr.contains("o-4711"))

        // The device holds another key: the server's alert is shown, and the receipt goes out.
        let server = try await MediaServer.get()
        let file = dir.appendingPathComponent("payload.json")
        try Data(clear.stdout.utf8).write(to: file)
        let run = try await richpush([
            "simulate", file.path, "--keys", otherKeys.path, "--allow-http-host", "127.0.0.1",
            "--receipts-url", server.url("/receipts"), "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(result["reason"] as? String == "decrypt_failed")
        #expect(result["pushId"] as? String == "o-4711")
        #expect((result["receipt"] as? [String: Any])?["status"] as? String == "sent")
        #expect((result["content"] as? [String: Any])?["title"] as? String == "New message")
        let receipts = try await server.receipts()
        #expect(receipts.contains { $0.contains("push_id=o-4711") && $0.contains("reason=decrypt_failed") })
    }
}
