import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// What every app gets without configuring anything, and the options that change it.
@Suite("Product defaults")
struct ProductDefaultsTests {
    @Test func noDefaultBodyButArticle000sTextIsTheDocumentedExample() {
        let configuration = RichPushConfiguration()
        #expect(configuration.defaultBody == nil)
        #expect(RichPushConfiguration.articleDefaultBody == "すぐに確認")
        #expect(configuration.mediaCategoryIdentifiers == [.image: "image", .video: "video", .audio: "audio"])
        #expect(configuration.buttonCategorySlots == 4)
        #expect(configuration.attachableFormats == Set(RichPushMediaFormat.appleAttachmentFormats))
    }

    @Test(arguments: [("photo.jpg", "image"), ("anim.gif", "image"), ("clip.mp4", "video"), ("chime.m4a", "audio"), ("chime.aiff", "audio")])
    func theCategoryFollowsTheMediaKind(file: String, category: String) async throws {
        let server = try await MediaServer.get()
        let configuration = try testConfiguration(deadline: arrivalDeadline)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let (result, _, run) = await runTimed(mediaPayload(server.url("/media/\(file)")), configuration: configuration)
        await run.waitUntilSettled()
        #expect(result.outcome == .mediaAttached, "\(result.message)")
        #expect(result.content.categoryIdentifier == category)
    }

    @Test func mediaCategoriesAreConfigurablePerKind() async throws {
        let server = try await MediaServer.get()
        var configuration = try testConfiguration(deadline: arrivalDeadline)
        configuration.mediaCategoryIdentifiers = [.video: "movie"]
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let video = await runTimed(mediaPayload(server.url("/media/clip.mp4")), configuration: configuration)
        let image = await runTimed(mediaPayload(server.url("/media/photo.jpg")), configuration: configuration)
        await video.run.waitUntilSettled()
        await image.run.waitUntilSettled()
        #expect(video.result.content.categoryIdentifier == "movie")
        #expect(image.result.outcome == .mediaAttached)
        #expect(image.result.content.categoryIdentifier == "")
        #expect(configuration.contentExtensionCategories == ["movie", "movie.buttons.1", "movie.buttons.2", "movie.buttons.3", "movie.buttons.4"])
    }

    /// With buttons and media, the category is the media category's button slot (the content
    /// extension lists it); with buttons and no media, `richpush.b.<hash>`; the same buttons
    /// always ask for the same slot.
    @Test func buttonsWithMediaTakeTheMediaCategorysSlot() async throws {
        let server = try await MediaServer.get()
        let configuration = try testConfiguration(deadline: arrivalDeadline)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        func payload(_ media: String) -> RichPushJSONValue {
            guard case .object(var root) = mediaPayload(server.url(media)) else { return .null }
            root["buttons"] = .array([.object(["id": .string("play"), "title": .string("Play")])])
            return .object(root)
        }
        let audio = await runTimed(payload("/media/chime.mp3"), configuration: configuration)
        let missing = await runTimed(payload("/404json"), configuration: configuration)
        await audio.run.waitUntilSettled()
        await missing.run.waitUntilSettled()
        let slot = RichPushCategoryDescription.preferredButtonSlot(for: [RichPushButton(identifier: "play", title: "Play")], slots: 4)
        #expect(audio.result.content.categoryIdentifier == "audio.buttons.\(slot)")
        #expect(audio.result.details.category?.identifier == "audio.buttons.\(slot)")
        #expect(missing.result.outcome == .textOnly)
        #expect(missing.result.content.categoryIdentifier.hasPrefix("richpush.b."))
        #expect(configuration.contentExtensionCategories.contains("audio.buttons.\(slot)"))
    }

    /// QuickTime is outside Apple's table: refused by default, attached when a configuration
    /// opts in (then iOS decides).
    @Test func quickTimeIsAttachedOnlyWhenOptedInto() async throws {
        let server = try await MediaServer.get()
        var configuration = try testConfiguration(deadline: arrivalDeadline)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let refused = await runTimed(mediaPayload(server.url("/media/clip.mov")), configuration: configuration)
        await refused.run.waitUntilSettled()
        #expect(refused.result.reason == .unsupportedFormat)
        #expect(refused.result.message.contains("additionalAttachmentFormats"))
        configuration.additionalAttachmentFormats = [.quickTime, .webP]  // WebP is not an opt-in format: ignored
        #expect(!configuration.attachableFormats.contains(.webP))
        let attached = await runTimed(mediaPayload(server.url("/media/clip.mov")), configuration: configuration)
        await attached.run.waitUntilSettled()
        #expect(attached.result.outcome == .mediaAttached)
        #expect(attached.result.content.attachments.first?.type == "com.apple.quicktime-movie")
        #expect(attached.result.content.categoryIdentifier == "video")
    }
}
