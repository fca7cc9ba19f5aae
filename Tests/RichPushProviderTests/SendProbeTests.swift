import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

/// `richpush send --probe`, run as the built binary against the mock APNs: a media URL the
/// extension would not attach stops the send before any token (or, with
/// `--on-media-error send-text`, goes out without its media key).
@Suite(.serialized) struct SendProbeTests {
    func send(_ mock: MockAPNs, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "send", "--key", mock.keyFile.path, "--team-id", MockAPNs.teamID, "--topic", MockAPNs.topic,
                "--apns-url", mock.baseURL, "--ca-file", mock.caFile.path,
            ] + arguments
        ).run(timeout: 120)
    }

    /// A payload with media at `image-url` (and the same URL again at no other key: one probe).
    func payload(_ mock: MockAPNs, media: String) throws -> String {
        let object: [String: Any] = [
            "aps": ["alert": ["title": "Sale", "body": "now"], "mutable-content": 1], "image-url": media, "push_id": "p-1",
        ]
        let file = mock.directory.appendingPathComponent("payload-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        return file.path
    }

    /// An https media server (a throwaway trustme CA, `--media-ca-file`) serving the fixtures'
    /// photo.jpg and photo.webp at `/f/NAME`; the caller kills it.
    func httpsMedia(in folder: URL) async throws -> (server: ChildProcess, port: Int, ca: String) {
        let files = folder.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        for name in ["photo.jpg", "photo.webp"] {
            try FileManager.default.copyItem(at: Fixtures.media(name), to: files.appendingPathComponent(name))
        }
        let ca = folder.appendingPathComponent("media-ca.pem").path
        let server = ChildProcess(
            "python3", [Fixtures.supportDirectory.appendingPathComponent("probe_media_server.py").path, files.path, "--tls-ca-out", ca])
        let port = try await server.start(waitingForPort: 30)
        return (server, port, ca)
    }

    @Test("an https JPEG the extension would attach: one ok line on stderr, and the push goes with its media")
    func anAttachableURLIsSentWithItsMedia() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let media = try await httpsMedia(in: mock.directory)
        defer { media.server.kill() }
        let url = "https://127.0.0.1:\(media.port)/f/photo.jpg"
        let run = try await send(
            mock,
            [
                "--token", MockAPNs.token("ee"), "--payload", try payload(mock, media: url), "--probe", "--media-allow-host", "127.0.0.1", "--media-ca-file",
                media.ca,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("ok image-url \(url): JPEG 900×600, 89696 bytes, ttfb ") }, "\(lines)")
        let stats = try await mock.stats()
        #expect(stats["requests"] == .int(1))
        let sent = try #require(stats["last_body_b64"]?.stringValue.flatMap { Data(base64Encoded: $0) })
        #expect(try RichPushJSONValue.parse(sent)["image-url"] == .string(url))
    }

    @Test("an https WebP: unsupported_format, exit 1 naming the fix, nothing sent")
    func aWebPStopsTheSend() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let media = try await httpsMedia(in: mock.directory)
        defer { media.server.kill() }
        let url = "https://127.0.0.1:\(media.port)/f/photo.webp"
        let run = try await send(
            mock,
            [
                "--token", MockAPNs.token("ef"), "--payload", try payload(mock, media: url), "--probe", "--media-allow-host", "127.0.0.1", "--media-ca-file",
                media.ca,
            ])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("unsupported_format image-url \(url): WebP (org.webmproject.webp)"), "\(run.stderr)")
        #expect(run.stderr.contains("(unsupported_format: WebP"), "\(run.stderr)")
        #expect(run.stderr.contains("richpush media optimize"), "the fix is named: \(run.stderr)")
        #expect(try await mock.stats()["requests"] == .int(0))
    }

    @Test("a refused media URL sends nothing: exit 1 naming the reason and the fix, the mock counts 0 requests")
    func aRefusedURLSendsNothing() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        // 127.0.0.1 without --media-allow-host: the probe refuses the address (no SSRF).
        let url = "https://127.0.0.1:\(mock.port)/p/123.jpg"
        let run = try await send(
            mock, ["--token", MockAPNs.token("aa"), "--token", MockAPNs.token("bb"), "--payload", try payload(mock, media: url), "--probe"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.isEmpty, "no token result: \(run.stdout)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("blocked_address image-url \(url): ") }, "\(lines)")
        #expect(run.stderr.contains("nothing was sent: the extension would not attach \(url) (blocked_address"), "\(run.stderr)")
        #expect(run.stderr.contains("--media-allow-host HOST"), "the fix is named: \(run.stderr)")
        #expect(run.stderr.contains("--on-media-error send-text"), "\(run.stderr)")
        #expect(try await mock.stats()["requests"] == .int(0))
    }

    @Test("--on-media-error send-text: the media key is removed, said on stderr, and the push goes without it")
    func sendTextSendsWithoutTheMediaKey() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        // The host is allowed, but it speaks no TLS (the plain-HTTP media server): a network failure.
        let server = try await MediaServer.get()
        let url = "https://127.0.0.1:\(server.port)/photo.jpg"
        let run = try await send(
            mock,
            [
                "--token", MockAPNs.token("cc"), "--payload", try payload(mock, media: url), "--probe", "--on-media-error", "send-text",
                "--media-allow-host", "127.0.0.1",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("network image-url \(url): ") }, "\(lines)")
        #expect(run.stderr.contains("--on-media-error send-text: removed image-url"), "\(run.stderr)")
        let stats = try await mock.stats()
        #expect(stats["requests"] == .int(1))
        let sent = try #require(stats["last_body_b64"]?.stringValue.flatMap { Data(base64Encoded: $0) })
        let body = try RichPushJSONValue.parse(sent)
        #expect(body["image-url"] == nil, "the media key is gone: \(String(decoding: sent, as: UTF8.self))")
        #expect(body["push_id"] == .string("p-1"))
        #expect(body["aps"]?["alert"]?["title"] == .string("Sale"))
        #expect(body["aps"]?["mutable-content"] == .int(1))
        let result = try RichPushJSONValue.parse(Data(run.stdout.utf8))
        #expect(result["outcome"] == .string("accepted"))
    }

    @Test("usage: --on-media-error without --probe, or an unknown value, is exit 64 and nothing is sent")
    func usage() async throws {
        let mock = try await MockAPNs()
        defer { mock.stop() }
        let path = try payload(mock, media: "https://cdn.example.com/p/1.jpg")
        let without = try await send(mock, ["--token", MockAPNs.token("dd"), "--payload", path, "--on-media-error", "send-text"])
        #expect(without.status == 64, "\(without.stderr)")
        #expect(without.stderr.contains("add '--probe'"))
        let unknown = try await send(mock, ["--token", MockAPNs.token("dd"), "--payload", path, "--probe", "--on-media-error", "skip"])
        #expect(unknown.status == 64, "\(unknown.stderr)")
        let noCA = try await send(mock, ["--token", MockAPNs.token("dd"), "--payload", path, "--probe", "--media-ca-file", "/nonexistent/ca.pem"])
        #expect(noCA.status == 64, "\(noCA.stderr)")
        #expect(noCA.stderr.contains("'--media-ca-file /nonexistent/ca.pem': no readable file there"), "\(noCA.stderr)")
        #expect(try await mock.stats()["requests"] == .int(0))
    }
}
