import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// Issue 30: a message's avatar under fault injection (a 404, a server that takes 20 s, 10 MB,
/// WebP, an HTML page), each with both transports: the pipeline alone (no converter here, as on
/// Linux without a host) falls back to the normal notification with `avatar_failed` and the media
/// reason, within the deadline, and leaves nothing on disk. (Conversion is `richpush simulate`'s,
/// whose host converts with libvips: `SimulateMessageTests`.)
@Suite("A message's avatar under fault injection")
struct AvatarFaultTests {
    /// The deadline of the 20 s case (the others answer at once and get the generous one).
    static let deadline = 3.0

    /// A one-to-one message whose sender's avatar is `avatar`, with or without media.
    static func message(avatar: String, media: String? = nil) -> RichPushJSONValue {
        var root: [String: RichPushJSONValue] = [
            "aps": .object(["alert": .object(["title": .string("Ada Lovelace"), "body": .string("Tea at five?")]), "mutable-content": .int(1)]),
            "push_id": .string("m-avatar"),
            "sender": .object(["id": .string("u-42"), "name": .string("Ada Lovelace"), "avatar": .string(avatar)]),
        ]
        if let media { root["image-url"] = .string(media) }
        return .object(root)
    }

    /// Runs one message and checks the fallback: `avatar_failed` as the reason (nothing else went
    /// wrong), the media reason in the details, no avatar handed over, delivered within the
    /// deadline, nothing left on disk.
    @discardableResult
    func fallsBack(
        _ path: String, transport: TransportKind, mediaReason: RichPushReasonCode, deadline: Double = 20
    ) async throws -> RichPushResult {
        let server = try await MediaServer.get("avatars")
        let configuration = try testConfiguration(deadline: deadline)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let (result, seconds, run) = await runTimed(Self.message(avatar: server.url(path)), configuration: configuration, transport: transport)
        #expect(result.outcome == .textOnly)
        #expect(result.reason == .avatarFailed, "\(path): \(result.message)")
        let communication = try #require(result.details.communication)
        #expect(communication.message?.sender.name == "Ada Lovelace")
        #expect(communication.fallback == .avatarFailed)
        #expect(communication.shown == false)
        #expect(communication.senderAvatar == nil)
        #expect(communication.note?.contains("(\(mediaReason.rawValue))") == true, "\(communication.note ?? "")")
        #expect(seconds < deadline + deliverySlack, "delivered after \(seconds) s")
        await run.waitUntilSettled()
        #expect(filesLeft(in: configuration.attachmentsDirectory).isEmpty)
        return result
    }

    @Test("a 404 avatar falls back with avatar_failed (http_status)", arguments: TransportKind.allCases)
    func notFound(_ t: TransportKind) async throws {
        try await fallsBack("/404json", transport: t, mediaReason: .httpStatus)
    }

    @Test("the note names whose avatar failed: the sender's, or the group's beside a sender's that arrived")
    func whoseAvatarFailed() async throws {
        let server = try await MediaServer.get("avatars")
        let configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let alone = try await fallsBack("/404json", transport: .urlSession, mediaReason: .httpStatus)
        let aloneNote = alone.details.communication?.note ?? ""
        #expect(aloneNote.hasPrefix("the sender's avatar failed (http_status): "), "\(aloneNote)")
        guard case .object(var root) = Self.message(avatar: server.url("/media/photo.jpg")) else { return }
        root["conversation"] = .object(
            ["id": .string("c-7"), "name": .string("Engine room"), "group": .bool(true), "avatar": .string(server.url("/404json"))])
        let (result, _, run) = await runTimed(.object(root), configuration: configuration, transport: .urlSession)
        #expect(result.reason == .avatarFailed)
        let note = result.details.communication?.note ?? ""
        #expect(note.hasPrefix("the group's avatar failed (http_status): "), "\(note)")
        // The sender's avatar arrived and is reported; the group's is not.
        #expect(result.details.communication?.senderAvatar?.type == "public.jpeg", "\(String(describing: result.details.communication))")
        #expect(result.details.communication?.conversationAvatar == nil)
        #expect(note.hasSuffix("; the normal notification is shown"), "\(note)")
        await run.waitUntilSettled()
    }

    @Test("an HTML page as the avatar falls back with avatar_failed (not_media)", arguments: TransportKind.allCases)
    func htmlPage(_ t: TransportKind) async throws {
        try await fallsBack("/login", transport: t, mediaReason: .notMedia)
    }

    @Test("a 10 MB avatar (over Apple's image limit) falls back at its Content-Length", arguments: TransportKind.allCases)
    func tenMegabytes(_ t: TransportKind) async throws {
        try await fallsBack("/sized?bytes=10485760", transport: t, mediaReason: .tooLarge)
    }

    @Test("a WebP avatar without a converter falls back with avatar_failed (unsupported_format)", arguments: TransportKind.allCases)
    func webPWithoutConverter(_ t: TransportKind) async throws {
        let result = try await fallsBack("/media/photo.webp", transport: t, mediaReason: .unsupportedFormat)
        #expect(result.details.communication?.note?.contains("WebP, which iOS does not draw, and this platform has no converter") == true)
    }

    @Test("an avatar server that takes 20 s falls back at the deadline, not after 20 s", arguments: TransportKind.allCases)
    func twentySeconds(_ t: TransportKind) async throws {
        let result = try await fallsBack("/slow-image?seconds=20", transport: t, mediaReason: .timeout, deadline: Self.deadline)
        #expect(result.elapsedMs >= Int(Self.deadline * 1000) - 100)
        #expect(result.elapsedMs < 20_000)
        // Either the pipeline's timer or the fetch's own stop at the same deadline ends it.
        #expect(result.details.communication?.note?.contains("deadline passed before the") == true)
    }

    @Test("an avatar that fails beside media that attaches: media_attached, reason avatar_failed", arguments: TransportKind.allCases)
    func mediaAttachedAvatarFailed(_ t: TransportKind) async throws {
        let server = try await MediaServer.get("avatars")
        let configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let payload = Self.message(avatar: server.url("/404json"), media: server.url("/media/photo.jpg"))
        let (result, _, run) = await runTimed(payload, configuration: configuration, transport: t)
        #expect(result.outcome == .mediaAttached)
        #expect(result.reason == .avatarFailed)
        #expect(result.content.attachments.count == 1)
        #expect(result.details.communication?.fallback == .avatarFailed)
        await run.waitUntilSettled()
    }

    @Test("an avatar that fails beside media that fails: the media's reason stays, the details say avatar_failed", arguments: TransportKind.allCases)
    func mediaReasonFirst(_ t: TransportKind) async throws {
        let server = try await MediaServer.get("avatars")
        let configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let payload = Self.message(avatar: server.url("/404json"), media: server.url("/500html"))
        let (result, _, run) = await runTimed(payload, configuration: configuration, transport: t)
        #expect(result.outcome == .textOnly)
        #expect(result.reason == .httpStatus)
        #expect(result.httpStatus == 500)
        #expect(result.details.communication?.fallback == .avatarFailed)
        await run.waitUntilSettled()
    }
}
