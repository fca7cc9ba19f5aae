#if !canImport(UserNotifications)
import Foundation
import RichPushTestSupport
import Testing

/// `richpush simulate` runs the real RichPushServiceExtension in the host and reports it.
@Suite struct SimulateHostTests {
    private func payloadFile(imageURL: String, in dir: URL) throws -> URL {
        var json = try JSONSerialization.jsonObject(with: try Fixtures.payload("seed000-image-and-stats.json")) as? [String: Any] ?? [:]
        var aps = json["aps"] as? [String: Any] ?? [:]
        var alert = aps["alert"] as? [String: Any] ?? [:]
        alert["image"] = imageURL
        aps["alert"] = alert
        json["aps"] = aps
        let file = dir.appendingPathComponent("payload.json")
        try JSONSerialization.data(withJSONObject: json).write(to: file)
        return file
    }

    /// Runs the built binary, awaiting its exit without blocking a thread.
    private func simulate(_ arguments: [String]) async throws -> [String: Any] {
        let run = try await ChildProcess(Fixtures.richpushBinary.path, ["simulate"] + arguments + ["--json"]).run(timeout: 60)
        try #require(run.status == 0, "exit \(run.status): \(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test func article000sImageEndsUpInTheHostStoreAndTheHostIsReported() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory("richpush-simulate-host")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let json = try await simulate([
            try payloadFile(imageURL: server.url("/media/photo.jpg"), in: dir).path, "--allow-http-host", "127.0.0.1", "--out", out.path,
        ])
        let host = try #require(json["host"] as? [String: Any])
        #expect(host["expiryCalled"] as? Bool == false)
        #expect(host["handlerCalls"] as? Int == 1)
        #expect((host["peakMemoryBytes"] as? Int ?? 0) > 0)
        let moved = try #require(host["attachmentsMovedTo"] as? [String])
        #expect(moved.count == 1)
        #expect(moved.allSatisfy { $0.hasPrefix(out.path) && FileManager.default.fileExists(atPath: $0) })
        let content = try #require(json["content"] as? [String: Any])
        let attachments = try #require(content["attachments"] as? [[String: Any]])
        #expect(attachments.first?["type"] as? String == "public.jpeg")
        #expect(attachments.first?["bytes"] as? Int == 89_696)
        #expect(attachments.first?["file"] as? String == moved.first)
        #expect(json["outcome"] as? String == "media_attached")
        #expect(content["categoryIdentifier"] as? String == "image")
    }

    @Test func aStalledServerMakesTheHostCallExpiryAtTheBudget() async throws {
        let server = try await MediaServer.get()
        let dir = try Fixtures.temporaryDirectory("richpush-simulate-host")
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = try await simulate([
            try payloadFile(imageURL: server.url("/hang"), in: dir).path, "--allow-http-host", "127.0.0.1", "--budget", "1",
            "--out", dir.appendingPathComponent("out").path,
        ])
        let host = try #require(json["host"] as? [String: Any])
        #expect(host["expiryCalled"] as? Bool == true)
        #expect(host["handlerCalls"] as? Int == 1)
        #expect((host["attachmentsMovedTo"] as? [String]) == [])
        #expect(json["outcome"] as? String == "text_only")
        let content = try #require(json["content"] as? [String: Any])
        #expect((content["attachments"] as? [Any])?.isEmpty == true)
        #expect(content["body"] as? String == "今すぐ確認")
    }
}
#endif
