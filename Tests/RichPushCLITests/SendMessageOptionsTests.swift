import Foundation
import RichPushTestSupport
import Testing

/// Issue 30: `richpush send`'s sender and conversation options write the payload the RichPush
/// extension shows as a communication notification (checked with `--dry-run`: lint and print).
@Suite("richpush send --sender-… and --conversation-…")
struct SendMessageOptionsTests {
    static let token = String(repeating: "a", count: 64)

    func send(_ arguments: [String], stdin: String? = nil) async throws -> ChildProcess.Finished {
        try await ChildProcess(
            Fixtures.richpushBinary.path, ["send", "--token", Self.token, "--topic", "com.example.app", "--dry-run"] + arguments
        ).run(timeout: 60)
    }

    @Test func aBuiltGroupMessage() async throws {
        let run = try await send([
            "--title", "Engine room", "--body", "It runs!", "--sender-id", "u-42", "--sender-name", "Ada Lovelace", "--sender-avatar",
            "https://cdn.example.com/ada.jpg", "--conversation-id", "c-7", "--conversation-name", "Engine room", "--conversation-avatar",
            "https://cdn.example.com/room.png", "--group",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect((payload["aps"] as? [String: Any])?["mutable-content"] as? Int == 1)
        #expect(payload["sender"] as? [String: String] == ["id": "u-42", "name": "Ada Lovelace", "avatar": "https://cdn.example.com/ada.jpg"])
        let conversation = try #require(payload["conversation"] as? [String: Any])
        #expect(conversation["id"] as? String == "c-7")
        #expect(conversation["name"] as? String == "Engine room")
        #expect(conversation["avatar"] as? String == "https://cdn.example.com/room.png")
        #expect(conversation["group"] as? Bool == true)
    }

    @Test func theOptionsGoIntoAPayloadFile() async throws {
        let folder = try Fixtures.temporaryDirectory("richpush-send-message")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("payload.json")
        try Data(#"{"aps": {"alert": {"title": "Ada", "body": "Tea?"}, "mutable-content": 1}, "sender": {"id": "old", "name": "Old"}}"#.utf8).write(to: file)
        let run = try await send(["--payload", file.path, "--sender-id", "u-1", "--sender-name", "Ada"])
        #expect(run.status == 0, "\(run.stderr)")
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(payload["sender"] as? [String: String] == ["id": "u-1", "name": "Ada"])
        #expect(payload["conversation"] == nil)
    }

    @Test func aSenderWithoutItsNameIsAUsageError() async throws {
        let run = try await send(["--title", "t", "--body", "b", "--sender-id", "u-1"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--sender-name: `sender.name` is missing"), "\(run.stderr)")
    }

    @Test func aPayloadFileWithoutMutableContentIsStoppedByTheLint() async throws {
        let folder = try Fixtures.temporaryDirectory("richpush-send-message")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("payload.json")
        try Data(#"{"aps": {"alert": "Tea?"}}"#.utf8).write(to: file)
        let run = try await send(["--payload", file.path, "--sender-id", "u-1", "--sender-name", "Ada"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("mutable_content_missing"), "\(run.stderr)")
    }
}
