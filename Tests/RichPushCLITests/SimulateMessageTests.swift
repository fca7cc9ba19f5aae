import Foundation
import RichPushTestSupport
import Testing

/// Issue 30 through `richpush simulate`: a group message and a one-to-one message, as the user
/// would see them (sender, conversation, avatar bytes), and the avatar under fault injection —
/// a 404, a server that takes 20 s, 10 MB, WebP, an HTML page — with the host's converter (libvips,
/// where iOS has ImageIO): each falls back or converts within the deadline.
@Suite("Messages through richpush simulate", .serialized)
struct SimulateMessageTests {
    /// Avatars made by real encoders, served by `probe_media_server.py`.
    final class Avatars: Sendable {
        let folder: URL
        let port: Int
        let server: ChildProcess

        init() async throws {
            let folder = try Fixtures.temporaryDirectory("richpush-avatars")
            self.folder = folder
            for name in ["photo.jpg", "photo.webp", "photo.heic", "logo.png", "notfound.html"] {
                try FileManager.default.copyItem(at: Fixtures.media(name), to: folder.appendingPathComponent(name))
            }
            // A real 9.5 MB JPEG (noise at Q97 from libvips): within Apple's 10 MB image limit,
            // far over what is handed over as data, so it must be made smaller.
            func vips(_ arguments: [String]) async throws {
                let run = try await ChildProcess("vips", arguments).run(timeout: 120)
                guard run.status == 0 else { throw TestSupportError("vips \(arguments.joined(separator: " ")) failed: \(run.stderr)") }
            }
            let f = { (name: String) in folder.appendingPathComponent(name).path }
            try await vips(["gaussnoise", f("noise.v"), "3900", "2600", "--sigma", "40", "--mean", "128"])
            try await vips(["bandjoin", "\(f("noise.v")) \(f("noise.v")) \(f("noise.v"))", f("noise3.v")])
            try await vips(["cast", f("noise3.v"), f("noise3u.v"), "uchar"])
            try await vips(["jpegsave", f("noise3u.v"), f("big.jpg"), "--Q", "97"])
            for name in ["noise.v", "noise3.v", "noise3u.v"] { try? FileManager.default.removeItem(atPath: f(name)) }
            server = ChildProcess("python3", [Fixtures.supportDirectory.appendingPathComponent("probe_media_server.py").path, folder.path])
            port = try await server.start(waitingForPort: 30)
        }

        func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

        func stop() async {
            await server.terminate()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    struct Simulated {
        let status: Int32
        let json: [String: Any]
        let stdout: String
        var details: [String: Any] { json["details"] as? [String: Any] ?? [:] }
        var communication: [String: Any] { details["communication"] as? [String: Any] ?? [:] }
        var sender: [String: Any] { communication["sender"] as? [String: Any] ?? [:] }
        var senderAvatar: [String: Any]? { sender["avatar"] as? [String: Any] }
        var conversation: [String: Any] { communication["conversation"] as? [String: Any] ?? [:] }
        var host: [String: Any] { json["host"] as? [String: Any] ?? [:] }
        var shown: [String: Any]? { host["communication"] as? [String: Any] }
    }

    static func write(_ payload: [String: Any], in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("payload-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]).write(to: url)
        return url
    }

    static func simulate(_ payload: URL, json: Bool = true, _ extra: [String] = []) async throws -> Simulated {
        let arguments = ["simulate", payload.path, "--allow-http-host", "127.0.0.1"] + (json ? ["--json"] : []) + extra
        let run = try await ChildProcess(Fixtures.richpushBinary.path, arguments).run(timeout: 120)
        guard json else { return Simulated(status: run.status, json: [:], stdout: run.stdout) }
        guard let line = run.stdout.split(separator: "\n").first, let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { throw TestSupportError("simulate printed no JSON (status \(run.status)): \(run.stdout) \(run.stderr)") }
        return Simulated(status: run.status, json: object, stdout: run.stdout)
    }

    static func oneToOne(avatar: String) -> [String: Any] {
        [
            "aps": ["alert": ["title": "Ada Lovelace", "body": "Tea at five?"], "mutable-content": 1],
            "push_id": "m-2", "sender": ["id": "u-42", "name": "Ada Lovelace", "avatar": avatar],
        ]
    }

    @Test func aGroupMessageShowsTheSenderTheGroupAndBothAvatars() async throws {
        let avatars = try await Avatars()
        let scratch = try Fixtures.temporaryDirectory("richpush-messages")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let payload = try Self.write(
            [
                "aps": ["alert": ["title": "Engine room", "body": "Ada: it runs!"], "mutable-content": 1], "push_id": "m-1",
                "sender": ["id": "u-42", "name": "Ada Lovelace", "avatar": avatars.url("f/photo.webp")],
                "conversation": ["id": "c-7", "name": "Engine room", "avatar": avatars.url("f/logo.png"), "group": true],
            ], in: scratch)
        let run = try await Self.simulate(payload)
        let text = try await Self.simulate(payload, json: false)
        await avatars.stop()
        #expect(run.status == 0)
        #expect(run.json["reason"] as? String == "no_media")
        #expect(run.communication["shown"] as? Bool == true)
        #expect(run.communication["fallback"] is NSNull)
        #expect(run.sender["name"] as? String == "Ada Lovelace")
        #expect(run.sender["id"] as? String == "u-42")
        // WebP is converted (here by libvips, on iOS by ImageIO) to what iOS draws.
        #expect(run.senderAvatar?["sourceType"] as? String == "org.webmproject.webp")
        #expect(run.senderAvatar?["sourceBytes"] as? Int == 41_746)
        #expect(run.senderAvatar?["type"] as? String == "public.jpeg")
        #expect(run.senderAvatar?["converted"] as? Bool == true)
        #expect((run.senderAvatar?["bytes"] as? Int ?? 0) > 1_000)
        #expect(run.conversation["id"] as? String == "c-7")
        #expect(run.conversation["name"] as? String == "Engine room")
        #expect(run.conversation["group"] as? Bool == true)
        #expect((run.conversation["avatar"] as? [String: Any])?["bytes"] as? Int == 1_906)
        // The host (iOS played) shows a communication notification with drawable avatars.
        #expect(run.shown?["senderName"] as? String == "Ada Lovelace")
        #expect(run.shown?["groupName"] as? String == "Engine room")
        #expect(run.shown?["group"] as? Bool == true)
        #expect((run.shown?["senderAvatar"] as? [String: Any])?["drawable"] as? Bool == true)
        #expect((run.host["faults"] as? [Any])?.isEmpty == true)
        // The readable summary says the same.
        #expect(text.stdout.contains("sender      Ada Lovelace (u-42), avatar "), "\(text.stdout)")
        #expect(text.stdout.contains(" bytes JPEG (converted from WebP, 41746 bytes)"), "\(text.stdout)")
        #expect(text.stdout.contains("conversation Engine room (c-7), group, avatar 1906 bytes PNG"), "\(text.stdout)")
        #expect(text.stdout.contains("message     shown as a communication notification"), "\(text.stdout)")
        #expect(text.stdout.contains("shows a communication notification from Ada Lovelace in the group Engine room"), "\(text.stdout)")
    }

    @Test func aOneToOneMessageShowsTheSenderAndTheAvatarAsSent() async throws {
        let avatars = try await Avatars()
        let scratch = try Fixtures.temporaryDirectory("richpush-messages")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let payload = try Self.write(Self.oneToOne(avatar: avatars.url("f/photo.jpg")), in: scratch)
        let run = try await Self.simulate(payload)
        let text = try await Self.simulate(payload, json: false)
        await avatars.stop()
        #expect(run.communication["shown"] as? Bool == true)
        #expect(run.senderAvatar?["bytes"] as? Int == 89_696)
        #expect(run.senderAvatar?["converted"] as? Bool == false)
        #expect(run.conversation["id"] as? String == "u-42")
        #expect(run.conversation["group"] as? Bool == false)
        #expect(run.shown?["group"] as? Bool == false)
        #expect(run.shown?["groupName"] is NSNull)
        #expect(text.stdout.contains("sender      Ada Lovelace (u-42), avatar 89696 bytes JPEG\n"), "\(text.stdout)")
        #expect(text.stdout.contains("conversation one-to-one (u-42)"), "\(text.stdout)")
    }

    /// The fault injection, with the host's converter: what falls back says `avatar_failed` and the
    /// media reason; what converts is shown; each within its deadline: 3 s for the 20 s server, 12 s
    /// for the rest (a debug build converting the 9.5 MB JPEG on a loaded 2-core machine once
    /// needed more than 3 s; the faults end at once whatever the deadline).
    @Test func eachAvatarFaultFallsBackOrConvertsWithinTheDeadline() async throws {
        let avatars = try await Avatars()
        let scratch = try Fixtures.temporaryDirectory("richpush-messages")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let media = try await MediaServer.get()
        let cases: [(name: String, url: String, fallback: String?, detail: String, deadline: Double)] = [
            ("404", avatars.url("missing.jpg"), "avatar_failed", "(http_status)", 12),
            ("20 s", media.url("/slow-image?seconds=20"), "avatar_failed", "deadline passed before the", 3),
            ("10 MB over the limit", media.url("/sized?bytes=10485760"), "avatar_failed", "(too_large)", 12),
            ("a real 9.5 MB JPEG", avatars.url("f/big.jpg"), nil, "shown as a communication notification", 12),
            ("WebP", avatars.url("f/photo.webp"), nil, "shown as a communication notification", 12),
            ("HEIC", avatars.url("f/photo.heic"), nil, "shown as a communication notification", 12),
            ("HTML", avatars.url("f/notfound.html"), "avatar_failed", "(not_media)", 12),
        ]
        for (name, url, fallback, detail, deadline) in cases {
            let run = try await Self.simulate(try Self.write(Self.oneToOne(avatar: url), in: scratch), ["--deadline", String(deadline)])
            let elapsed = run.json["elapsedMs"] as? Int ?? .max
            #expect(elapsed < Int(deadline * 1000) + 1_000, "\(name): \(elapsed) ms")
            #expect((run.communication["note"] as? String)?.contains(detail) == true, "\(name): \(run.communication)")
            if let fallback {
                #expect(run.json["reason"] as? String == fallback, "\(name)")
                #expect(run.communication["fallback"] as? String == fallback, "\(name)")
                #expect(run.shown == nil, "\(name): shown as a communication notification")
            } else {
                #expect(run.json["reason"] as? String == "no_media", "\(name)")
                #expect(run.senderAvatar?["converted"] as? Bool == true, "\(name)")
                #expect(run.senderAvatar?["type"] as? String == "public.jpeg", "\(name)")
                #expect((run.senderAvatar?["bytes"] as? Int ?? .max) <= 1_000_000, "\(name)")
                #expect((run.shown?["senderAvatar"] as? [String: Any])?["drawable"] as? Bool == true, "\(name)")
            }
        }
        await avatars.stop()
    }

    @Test func anAppWithoutTheCapabilityFallsBackWithIntentFailed() async throws {
        let avatars = try await Avatars()
        let scratch = try Fixtures.temporaryDirectory("richpush-messages")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let payload = try Self.write(Self.oneToOne(avatar: avatars.url("f/photo.jpg")), in: scratch)
        let run = try await Self.simulate(payload, ["--without-communication-capability"])
        let text = try await Self.simulate(payload, json: false, ["--without-communication-capability"])
        await avatars.stop()
        #expect(run.json["reason"] as? String == "intent_failed")
        #expect(run.communication["fallback"] as? String == "intent_failed")
        #expect(run.shown == nil)
        #expect(text.stdout.contains("message     fallback intent_failed: the intent failed: the app is not allowed"), "\(text.stdout)")
    }

    /// `--no-communication` with a message from a person: one line says the message is shown as a
    /// normal notification and why (it printed nothing about the sender).
    @Test func withCommunicationOffTheSummarySaysTheMessageIsShownAsANormalNotification() async throws {
        let scratch = try Fixtures.temporaryDirectory("richpush-messages")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var payload = Self.oneToOne(avatar: "https://cdn.example.com/ada.jpg")
        payload["sender"] = ["id": "u-42", "name": "Ada Lovelace"]
        let file = try Self.write(payload, in: scratch)
        let off = try await Self.simulate(file, json: false, ["--no-communication"])
        #expect(
            off.stdout.contains(
                "message     a message from a person, shown as a normal notification: communication notifications are off (--no-communication)"),
            "\(off.stdout)")
        let on = try await Self.simulate(file, json: false)
        #expect(!on.stdout.contains("communication notifications are off"), "\(on.stdout)")
        // No message in the payload: no such line.
        payload["sender"] = nil
        let plain = try await Self.simulate(try Self.write(payload, in: scratch), json: false, ["--no-communication"])
        #expect(!plain.stdout.contains("communication notifications are off"), "\(plain.stdout)")
    }
}
