import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// Every payload of the articles, its media URL pointed at the local media server.
@Suite("Article payloads against a real media server")
struct FixturePayloadTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let payload: String
        /// The fixture served in place of the article's URL (`nil`: the URL is left, unused).
        let media: String?
        let outcome: RichPushOutcome
        let reason: RichPushReasonCode?
        let type: String?
        let pushID: String?
        var testDescription: String { payload }
    }

    static let cases: [Case] = [
        Case(payload: "seed000-basic.json", media: nil, outcome: .textOnly, reason: .noMedia, type: nil, pushID: nil),
        Case(payload: "seed000-empty-body.json", media: "photo.jpg", outcome: .mediaAttached, reason: nil, type: "public.jpeg", pushID: "2018002"),
        Case(payload: "seed000-image-and-stats.json", media: "photo.jpg", outcome: .mediaAttached, reason: nil, type: "public.jpeg", pushID: "2018001"),
        Case(payload: "seed001-fcm-as-delivered.json", media: "logo.png", outcome: .mediaAttached, reason: nil, type: "public.png", pushID: "1543200000000001"),
        // The FCM *send* request (what the provider posts to Firebase), not what reaches the device:
        // it has no `aps`, and its URL sits under `data.image-url`, which no default key path names.
        // The pipeline reads it as it is: no media → text_only, reason no_media (with the default body).
        Case(payload: "seed001-fcm-send.json", media: "logo.png", outcome: .textOnly, reason: .noMedia, type: nil, pushID: nil),
        Case(payload: "seed002-attachment-url.json", media: "logo.png", outcome: .mediaAttached, reason: nil, type: "public.png", pushID: nil),
        Case(payload: "seed003-audio.json", media: "chime.mp3", outcome: .mediaAttached, reason: nil, type: "public.mp3", pushID: nil),
        Case(payload: "seed003-url.json", media: "progressive.jpg", outcome: .mediaAttached, reason: nil, type: "public.jpeg", pushID: nil),
        Case(payload: "seed003-video.json", media: "clip.mp4", outcome: .mediaAttached, reason: nil, type: "public.mpeg-4", pushID: nil),
        Case(payload: "seed004-media-url.json", media: "photo.jpg", outcome: .mediaAttached, reason: nil, type: "public.jpeg", pushID: nil),
    ]

    /// The payload's text with its https URL replaced by the local server's URL for `media`.
    static func localPayload(_ c: Case, server: MediaServer) throws -> Data {
        var text = String(decoding: try Fixtures.payload(c.payload), as: UTF8.self)
        if let media = c.media, let range = text.range(of: #"https://[^"]+"#, options: .regularExpression) {
            text.replaceSubrange(range, with: server.url("/media/\(media)"))
        }
        return Data(text.utf8)
    }

    @Test("covers every payload fixture")
    func coversEveryFixture() throws {
        #expect(Set(try Fixtures.payloadNames()) == Set(Self.cases.map(\.payload)))
    }

    @Test("each article payload attaches the right type and bytes, or gives the right reason", arguments: cases)
    func payload(_ c: Case) async throws {
        let server = try await MediaServer.get("fixtures")
        let configuration = try testConfiguration(deadline: arrivalDeadline)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let pipeline = NotificationPipeline(configuration: configuration)
        let result = await pipeline.process(payload: try Self.localPayload(c, server: server))
        #expect(result.outcome == c.outcome, "\(result.message)")
        #expect(result.reason == c.reason)
        #expect(result.pushID == c.pushID)
        if let type = c.type, let media = c.media {
            let attachment = try #require(result.content.attachments.first)
            let expected = try Data(contentsOf: Fixtures.media(media))
            #expect(attachment.type == type)
            #expect(attachment.bytes == expected.count)
            #expect(try Data(contentsOf: URL(fileURLWithPath: attachment.file)) == expected)
            #expect(attachment.file.hasPrefix(configuration.attachmentsDirectory.path))
        } else {
            #expect(result.content.attachments.isEmpty)
        }
    }

    @Test("article 000's empty body becomes its text when configured, and the category becomes image")
    func emptyBodyRule() async throws {
        let server = try await MediaServer.get("fixtures")
        var configuration = try testConfiguration(deadline: arrivalDeadline)
        configuration.defaultBody = RichPushConfiguration.articleDefaultBody
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let c = try #require(Self.cases.first { $0.payload == "seed000-empty-body.json" })
        let result = await NotificationPipeline(configuration: configuration).process(payload: try Self.localPayload(c, server: server))
        #expect(result.content.body == "すぐに確認")
        #expect(result.content.title == "新しい記事をおすすめします")
        #expect(result.content.categoryIdentifier == "image")
        #expect(result.content.badge == 0)
        #expect(result.content.sound == "default")
    }

    @Test("a category named by the payload is kept when media is attached")
    func keepsPayloadCategory() async throws {
        let server = try await MediaServer.get("fixtures")
        let configuration = try testConfiguration(deadline: arrivalDeadline)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let c = try #require(Self.cases.first { $0.payload == "seed002-attachment-url.json" })
        let result = await NotificationPipeline(configuration: configuration).process(payload: try Self.localPayload(c, server: server))
        #expect(result.outcome == .mediaAttached)
        #expect(result.content.categoryIdentifier == "digest")
        #expect(result.content.subtitle == "Top stories")
    }

    @Test("by default an empty body stays empty; the media category can be turned off")
    func rulesOff() async throws {
        let server = try await MediaServer.get("fixtures")
        var configuration = try testConfiguration(deadline: arrivalDeadline)
        configuration.mediaCategoryIdentifiers = [:]
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let c = try #require(Self.cases.first { $0.payload == "seed000-empty-body.json" })
        let result = await NotificationPipeline(configuration: configuration).process(payload: try Self.localPayload(c, server: server))
        #expect(result.outcome == .mediaAttached)
        #expect(result.content.body == "")
        #expect(result.content.categoryIdentifier == "")
    }

    @Test("a configured key path finds the FCM send form's data.image-url")
    func customKeyPath() async throws {
        let server = try await MediaServer.get("fixtures")
        var configuration = try testConfiguration(deadline: arrivalDeadline)
        configuration.mediaKeyPaths = ["data.image-url"]
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let c = try #require(Self.cases.first { $0.payload == "seed001-fcm-send.json" })
        let result = await NotificationPipeline(configuration: configuration).process(payload: try Self.localPayload(c, server: server))
        #expect(result.outcome == .mediaAttached)
        #expect(result.content.attachments.first?.type == "public.png")
    }

    struct MediaCase: Sendable, CustomTestStringConvertible {
        let file: String
        let type: String?
        let reason: RichPushReasonCode?
        var testDescription: String { file }
    }

    static let mediaCases: [MediaCase] = [
        MediaCase(file: "photo.jpg", type: "public.jpeg", reason: nil),
        MediaCase(file: "progressive.jpg", type: "public.jpeg", reason: nil),
        MediaCase(file: "logo.png", type: "public.png", reason: nil),
        MediaCase(file: "anim.gif", type: "com.compuserve.gif", reason: nil),
        MediaCase(file: "chime.mp3", type: "public.mp3", reason: nil),
        MediaCase(file: "chime.m4a", type: "public.mpeg-4-audio", reason: nil),
        MediaCase(file: "chime.wav", type: "com.microsoft.waveform-audio", reason: nil),
        MediaCase(file: "chime.aiff", type: "public.aiff-audio", reason: nil),
        MediaCase(file: "clip.mp4", type: "public.mpeg-4", reason: nil),
        // QuickTime is not in Apple's table: refused unless a configuration opts in.
        MediaCase(file: "clip.mov", type: nil, reason: .unsupportedFormat),
        MediaCase(file: "photo.webp", type: nil, reason: .unsupportedFormat),
        MediaCase(file: "photo.heic", type: nil, reason: .unsupportedFormat),
        MediaCase(file: "icon.svg", type: nil, reason: .unsupportedFormat),
        MediaCase(file: "tiny.bmp", type: nil, reason: .unsupportedFormat),
        MediaCase(file: "notfound.html", type: nil, reason: .notMedia),
    ]

    @Test("every media fixture attaches with its UTType and size, or is refused for the right reason", arguments: mediaCases)
    func mediaFile(_ c: MediaCase) async throws {
        let server = try await MediaServer.get("fixtures")
        let configuration = try testConfiguration(deadline: arrivalDeadline)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let (result, _, run) = await runTimed(mediaPayload(server.url("/media/\(c.file)")), configuration: configuration)
        await run.waitUntilSettled()
        #expect(result.reason == c.reason, "\(result.message)")
        if let type = c.type {
            let expected = try Data(contentsOf: Fixtures.media(c.file))
            let attachment = try #require(result.content.attachments.first)
            #expect(result.outcome == .mediaAttached)
            #expect(attachment.type == type)
            #expect(attachment.bytes == expected.count)
            #expect(URL(fileURLWithPath: attachment.file).pathExtension == RichPushMediaFormat.forUniformTypeIdentifier(type)?.fileExtension)
        } else {
            #expect(result.outcome == .textOnly)
            #expect(filesLeft(in: configuration.attachmentsDirectory).isEmpty)
        }
    }
}
