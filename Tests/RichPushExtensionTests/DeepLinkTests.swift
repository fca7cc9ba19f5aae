import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// Article 003's top-level `url`: media when it names a media file, a deep link otherwise.
@Suite("A url that is a deep link is not media")
struct DeepLinkTests {
    @Test("a custom-scheme or page url is not fetched: text only, reason no_media, the link named", arguments: ["myapp://sale/42", "/articles/42"])
    func deepLinkIsNotFetched(_ link: String) async throws {
        let server = try await MediaServer.get()
        let configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        // A page on the local server: fetched, it would answer 404 (http_status) or HTML (not_media).
        let url = link.hasPrefix("/") ? server.url(link) : link
        let payload: RichPushJSONValue = .object([
            "aps": .object(["alert": .object(["title": .string("Sale"), "body": .string("Tap to see it")]), "mutable-content": .int(1)]),
            "url": .string(url), "push_id": .string("deep-1"),
        ])
        let result = await NotificationPipeline(configuration: configuration).process(payload: payload)
        #expect(result.outcome == .textOnly)
        #expect(result.reason == .noMedia, "\(result.message)")
        #expect(result.httpStatus == nil)
        #expect(result.details.mediaRequested == 0)
        #expect(result.message.contains("is a link, not media"), "\(result.message)")
    }

    @Test("a deep link url does not hide the media named by a later key")
    func laterKeyStillWins() async throws {
        let server = try await MediaServer.get()
        let configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let payload: RichPushJSONValue = .object([
            "aps": .object(["alert": .object(["title": .string("Sale"), "body": .string("Tap to see it")]), "mutable-content": .int(1)]),
            "url": .string("myapp://sale/42"), "media-url": .string(server.url("/media/photo.jpg")),
        ])
        let result = await NotificationPipeline(configuration: configuration).process(payload: payload)
        #expect(result.outcome == .mediaAttached, "\(result.message)")
        #expect(result.content.attachments.first?.type == "public.jpeg")
    }
}
