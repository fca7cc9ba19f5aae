import Foundation
import RichPushTestSupport
import Testing

@_spi(RichPushInternal) @testable import RichPushExtension

/// Issue 30, item 1: each stage of the pipeline on its own, through its one contract
/// (`prepare`, `hasWork`, `conclude`, `finish`), without a run, a network or a deadline.
@Suite("Each pipeline stage on its own")
struct PipelineStageTests {
    static func work(_ json: String) throws -> PipelineWork {
        PipelineWork(.parsed(try RichPushJSONValue.parse(Data(json.utf8))))
    }

    static let rules = ContentRules(defaultBody: nil, mediaCategoryIdentifiers: RichPushConfiguration.defaultMediaCategoryIdentifiers)

    @Test func contentBuildsTheBestAttemptWithPushIDVendorAndButtons() throws {
        var work = try Self.work(
            #"{"aps": {"alert": {"title": "T", "body": ""}}, "push_id": "p-1", "buttons": [{"id": "ok", "title": "OK"}], "thumbnail": {"hidden": 7}}"#)
        ContentStage(
            rules: ContentRules(defaultBody: "すぐに確認", mediaCategoryIdentifiers: [:]), pushIDKeyPaths: RichPushPayloadKeyPath.defaultPushIDKeyPaths,
            buttonCategorySlots: 4
        )
        .prepare(&work)
        #expect(work.isReadable)
        #expect(work.best.outcome == .textOnly)
        #expect(work.best.reason == nil)
        #expect(work.best.content.body == "すぐに確認")
        #expect(work.best.pushID == "p-1")
        #expect(work.best.pushIDKeyPath == "push_id")
        #expect(work.buttons?.buttons.map(\.identifier) == ["ok"])
        #expect(work.best.content.categoryIdentifier.hasPrefix("richpush.b."))
        #expect(work.best.details.notes == ["invalid_thumbnail"])
    }

    @Test func contentDeliversAnInvalidPayloadAsTheOriginal() throws {
        var work = try Self.work(#"{"aps": {"alert": 7}}"#)
        ContentStage(rules: Self.rules, pushIDKeyPaths: [], buttonCategorySlots: 4).prepare(&work)
        #expect(!work.isReadable)
        #expect(work.best.outcome == .original)
        #expect(work.best.reason == .invalidPayload)
    }

    @Test func contentMovesTheButtonsToTheMediaCategorysSlotOnceMediaIsAttached() throws {
        var work = try Self.work(#"{"aps": {"alert": "hi"}, "buttons": [{"id": "ok", "title": "OK"}]}"#)
        let stage = ContentStage(rules: Self.rules, pushIDKeyPaths: [], buttonCategorySlots: 4)
        stage.prepare(&work)
        var result = work.best
        result.content.attachments = [RichPushNotificationContent.Attachment(identifier: "image", file: "/x.jpg", type: "public.jpeg", bytes: 1)]
        result.outcome = .mediaAttached
        stage.finish(&result, work: work)
        #expect(result.content.categoryIdentifier.hasPrefix("image.buttons."))
        #expect(result.details.category?.identifier == result.content.categoryIdentifier)
    }

    @Test func decryptWithoutKeysKeepsTheClearAlertAndMakesDecryptFailedTheReason() throws {
        var work = try Self.work(#"{"aps": {"alert": "New message"}, "enc": {"v": 2, "kid": "k", "iv": "AAAA", "ct": "AAAA", "tag": "AAAA"}}"#)
        let stage = DecryptStage(keys: nil, pushIDKeyPaths: RichPushPayloadKeyPath.defaultPushIDKeyPaths)
        stage.prepare(&work)
        #expect(work.json?["enc"] == nil)
        ContentStage(rules: Self.rules, pushIDKeyPaths: [], buttonCategorySlots: 0).prepare(&work)
        var result = work.best
        stage.finish(&result, work: work)
        #expect(result.reason == .decryptFailed)
        #expect(result.content.body == "New message")
        #expect(result.details.decryption != nil && result.details.decryption != "decrypted")
    }

    @Test func mediaReadsOneURLOrManyOnOnePathAndNeedsNoNetworkForBadOnes() throws {
        var configuration = RichPushConfiguration()
        configuration.attachmentsDirectory = try Fixtures.temporaryDirectory("richpush-stage")
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let stage = MediaStage(configuration: configuration, transport: URLSessionMediaTransport(), rules: Self.rules, validate: nil)
        var one = try Self.work(#"{"aps": {"alert": "hi"}, "image-url": "https://cdn.example.com/a.jpg"}"#)
        ContentStage(rules: Self.rules, pushIDKeyPaths: [], buttonCategorySlots: 0).prepare(&one)
        stage.prepare(&one)
        #expect(one.media.items.count == 1)
        #expect(one.best.details.mediaRequested == 1)
        #expect(stage.hasWork(one))

        var bad = try Self.work(#"{"aps": {"alert": "hi"}, "media-url": ["ftp://x/a.jpg", "not a url"]}"#)
        ContentStage(rules: Self.rules, pushIDKeyPaths: [], buttonCategorySlots: 0).prepare(&bad)
        stage.prepare(&bad)
        #expect(!stage.hasWork(bad))
        var result = bad.best
        stage.conclude(&result, work: bad, stop: .completed)
        #expect(result.reason == .badURL)
        #expect(result.message.hasPrefix("none of 2 media attached"))

        var none = try Self.work(#"{"aps": {"alert": "hi"}, "url": "myapp://article/42"}"#)
        ContentStage(rules: Self.rules, pushIDKeyPaths: [], buttonCategorySlots: 0).prepare(&none)
        stage.prepare(&none)
        var noMedia = none.best
        stage.conclude(&noMedia, work: none, stop: .completed)
        #expect(noMedia.reason == .noMedia)
        #expect(noMedia.message.contains("url myapp://article/42 is a link, not media"))
    }

    @Test func mediaAtTheDeadlineReportsWhatHadNotArrivedAsTimeout() throws {
        var configuration = RichPushConfiguration()
        configuration.attachmentsDirectory = try Fixtures.temporaryDirectory("richpush-stage")
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let stage = MediaStage(configuration: configuration, transport: URLSessionMediaTransport(), rules: Self.rules, validate: nil)
        var work = try Self.work(#"{"aps": {"alert": "hi"}, "image-url": "https://cdn.example.com/a.jpg"}"#)
        ContentStage(rules: Self.rules, pushIDKeyPaths: [], buttonCategorySlots: 0).prepare(&work)
        stage.prepare(&work)
        var result = work.best
        stage.conclude(&result, work: work, stop: .deadline(seconds: 25))
        #expect(result.outcome == .textOnly)
        #expect(result.reason == .timeout)
        #expect(result.message == "the pipeline's deadline (25.0 s) passed before the media arrived")
        #expect(result.mediaURL?.absoluteString == "https://cdn.example.com/a.jpg")
    }

    @Test func communicationReadsTheSenderAndFallsBackOnWhatIsMissingAtTheDeadline() throws {
        var configuration = RichPushConfiguration()
        configuration.attachmentsDirectory = try Fixtures.temporaryDirectory("richpush-stage")
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let stage = CommunicationStage(configuration: configuration, transport: URLSessionMediaTransport(), intent: nil)
        var work = try Self.work(
            #"{"aps": {"alert": "hi"}, "sender": {"id": "u-1", "name": "Ada", "avatar": "https://cdn.example.com/ada.jpg"}}"#)
        ContentStage(rules: Self.rules, pushIDKeyPaths: [], buttonCategorySlots: 0).prepare(&work)
        stage.prepare(&work)
        #expect(work.message?.sender.name == "Ada")
        #expect(work.message?.conversation.id == "u-1")
        #expect(stage.hasWork(work))
        var result = work.best
        result.reason = .noMedia
        stage.conclude(&result, work: work, stop: .expired)
        #expect(result.reason == .avatarFailed)
        #expect(result.details.communication?.note?.hasPrefix("the host's time ran out before the avatar arrived (timeout)") == true)
    }

    @Test func badgeAppliesItsOperationOnceAndNeedsAContainer() throws {
        let directory = try Fixtures.temporaryDirectory("richpush-stage-badge")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stage = BadgeStage(stateDirectory: directory, pushIDKeyPaths: RichPushPayloadKeyPath.defaultPushIDKeyPaths)
        for expected in [(1, [String]()), (1, ["badge_repeat"])] {
            var work = try Self.work(#"{"aps": {"alert": "hi"}, "push_id": "b-1", "badge_op": "inc"}"#)
            ContentStage(rules: Self.rules, pushIDKeyPaths: [], buttonCategorySlots: 0).prepare(&work)
            stage.prepare(&work)
            #expect(work.best.details.badge == expected.0)
            #expect(work.best.content.badge == expected.0)
            #expect(work.best.details.notes == expected.1)
        }
        var noContainer = try Self.work(#"{"aps": {"alert": "hi"}, "badge_op": "inc"}"#)
        BadgeStage(stateDirectory: nil, pushIDKeyPaths: []).prepare(&noContainer)
        #expect(noContainer.best.details.notes == ["badge_no_container"])
        var nothing = try Self.work(#"{"aps": {"alert": "hi"}}"#)
        BadgeStage(stateDirectory: directory, pushIDKeyPaths: []).prepare(&nothing)
        #expect(nothing.best.details.notes.isEmpty)
        #expect(nothing.best.details.badge == nil)
    }

    @Test func makingAPipelinesStagesTouchesNoFile() throws {
        let directory = try Fixtures.temporaryDirectory("richpush-stage-init")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = RichPushConfiguration()
        configuration.attachmentsDirectory = directory.appendingPathComponent("attachments")
        configuration.stateDirectory = directory.appendingPathComponent("state")
        let stages = NotificationPipeline.stages(configuration: configuration, transport: URLSessionMediaTransport(), validate: nil, intent: nil)
        #expect(stages.all.count == 5)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
