#if !canImport(UserNotifications)
import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushExtensionHost
@_spi(RichPushInternal) import RichPushNotificationService
import RichPushTestSupport
import Testing
import UserNotificationsStandIn

/// `RichPushServiceExtension` run by the host as iOS runs it, against a real local media server.
@Suite(.serialized) struct BridgeThroughHostTests {
    private struct Setup {
        let server: MediaServer
        let store: URL
        let extensionFolder: URL
        var configuration: RichPushConfiguration

        /// - Parameter deadline: the pipeline's; by default 25 s (within the tests' 30 s budget):
        ///   a loaded machine held a local download past 10 s, and the tests that do not set it do
        ///   not check it.
        init(deadline: Double = 25) async throws {
            server = try await BridgeMediaServer.get()
            store = try Fixtures.temporaryDirectory("richpush-host-store")
            extensionFolder = try Fixtures.temporaryDirectory("richpush-extension")
            configuration = RichPushConfiguration()
            configuration.allowedHTTPHosts = ["127.0.0.1"]
            configuration.attachmentsDirectory = extensionFolder
            configuration.deadline = deadline
        }

        func cleanUp() {
            try? FileManager.default.removeItem(at: store)
            try? FileManager.default.removeItem(at: extensionFolder)
        }

        /// Article 000's payload with its image URL pointed at `path` on the local server.
        func article000(imagePath: String, title: String = "新しい記事をおすすめします", pushID: String = "2018001") throws -> UNNotificationRequest {
            var json = try JSONSerialization.jsonObject(with: try Fixtures.payload("seed000-image-and-stats.json")) as? [String: Any] ?? [:]
            var aps = json["aps"] as? [String: Any] ?? [:]
            var alert = aps["alert"] as? [String: Any] ?? [:]
            alert["image"] = server.url(imagePath)
            alert["title"] = title
            alert["push_id"] = pushID
            aps["alert"] = alert
            json["aps"] = aps
            return PushRequest.make(payload: try JSONSerialization.data(withJSONObject: json))
        }

        /// Files left in the extension's own folder (iOS moved the shown ones away).
        func filesLeftInExtensionFolder() -> [String] {
            let e = FileManager.default.enumerator(atPath: extensionFolder.path)
            var files: [String] = []
            while let item = e?.nextObject() as? String {
                var isDir: ObjCBool = false
                if FileManager.default.fileExists(atPath: extensionFolder.appendingPathComponent(item).path, isDirectory: &isDir), !isDir.boolValue {
                    files.append(item)
                }
            }
            return files
        }
    }

    @Test func article000sImageIsAttachedAndMovedIntoTheHostStoreAsPublicJPEG() async throws {
        var setup = try await Setup()
        defer { setup.cleanUp() }
        setup.configuration.receiptsURL = URL(string: setup.server.url("/receipts"))
        let service = RichPushServiceExtension(configuration: setup.configuration)
        let report = await ExtensionHost(storeDirectory: setup.store, budget: 30).run(try setup.article000(imagePath: "/media/photo.jpg"), on: service)

        #expect(report.handlerCalls == 1)
        #expect(!report.expiryCalled)
        #expect(!report.shownOriginal)
        #expect(report.faults.isEmpty)
        let attachment = try #require(report.shown.attachments.first)
        #expect(report.shown.attachments.count == 1)
        #expect(attachment.type == "public.jpeg")
        #expect(attachment.bytes == 89_696)
        #expect(attachment.file.path.hasPrefix(setup.store.path))
        #expect(report.attachmentsMovedTo == [attachment.file.path])
        #expect(try Data(contentsOf: attachment.file) == Data(contentsOf: Fixtures.media("photo.jpg")))
        #expect(setup.filesLeftInExtensionFolder().isEmpty)
        #expect(report.shown.title == "新しい記事をおすすめします")
        #expect(report.shown.body == "今すぐ確認")
        #expect(report.shown.categoryIdentifier == "image")
        #expect(report.shown.sound == "default")
        #expect(report.shown.badge == 0)
    }

    @Test func aStalledMediaServerGivesTheBestAttemptTextAtExpiryWithNoAttachment() async throws {
        let setup = try await Setup(deadline: 25)
        defer { setup.cleanUp() }
        let service = RichPushServiceExtension(configuration: setup.configuration)
        // A grace of 5 s: a service that did not deliver at expiry would be shown as the original
        // at 6 s; delivering at expiry comes far sooner, however loaded the machine.
        let report = await ExtensionHost(storeDirectory: setup.store, budget: 1, expiryGrace: 5)
            .run(try setup.article000(imagePath: "/hang"), on: service)

        #expect(report.expiryCalled)
        #expect(report.handlerCalls == 1)
        #expect(!report.shownOriginal)
        #expect(report.faults.isEmpty)
        #expect(report.shown.attachments.isEmpty)
        #expect(report.attachmentsMovedTo.isEmpty)
        #expect(report.shown.title == "新しい記事をおすすめします")
        #expect(report.shown.body == "今すぐ確認")
        // No media: the media category rule does not apply.
        #expect(report.shown.categoryIdentifier == "")
        // Delivered at expiry (1 s), well before budget + grace (6 s).
        #expect(report.elapsedMs < 5_000, "delivered after \(report.elapsedMs) ms")
        #expect(setup.filesLeftInExtensionFolder().isEmpty)
    }

    @Test func aFileIOSRefusesIsReportedWithItsReasonAndTheTextIsDelivered() async throws {
        var setup = try await Setup()
        defer { setup.cleanUp() }
        setup.configuration.receiptsURL = URL(string: setup.server.url("/receipts"))
        let service = OversizingService(configuration: setup.configuration)
        let pushID = "bridge-refused-\(UUID().uuidString)"
        let report = await ExtensionHost(storeDirectory: setup.store, budget: 30)
            .run(try setup.article000(imagePath: "/media/photo.jpg", pushID: pushID), on: service)

        #expect(report.handlerCalls == 1)
        #expect(!report.shownOriginal)
        #expect(report.shown.attachments.isEmpty)
        #expect(report.shown.body == "今すぐ確認")
        #expect(report.shown.categoryIdentifier == "")
        let result = try #require(service.delivered)
        #expect(result.outcome == .textOnly)
        #expect(result.reason == .tooLarge)
        #expect(setup.filesLeftInExtensionFolder().isEmpty)
        // The receipt carries the same reason.
        let settled = await service.settledReceipt()
        #expect(settled?.status == .sent)
        let receipts = try await setup.server.receipts()
        let body = try #require(receipts.last { $0.hasPrefix("push_id=\(pushID)&") })
        let fields = Dictionary(
            body.split(separator: "&").map { pair -> (String, String) in
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                return (kv[0], kv.count > 1 ? kv[1] : "")
            }, uniquingKeysWith: { a, _ in a })
        #expect(fields["outcome"] == "text_only")
        #expect(fields["reason"] == "too_large")
    }

    @Test func aFileGoneBeforeDeliveryGivesTextOnlyNotACrash() async throws {
        let setup = try await Setup()
        defer { setup.cleanUp() }
        let service = VanishingFileService(configuration: setup.configuration)
        let report = await ExtensionHost(storeDirectory: setup.store, budget: 30).run(try setup.article000(imagePath: "/media/logo.png"), on: service)

        #expect(report.handlerCalls == 1)
        #expect(report.shown.attachments.isEmpty)
        #expect(report.shown.categoryIdentifier == "")
        let result = try #require(service.delivered)
        #expect(result.outcome == .textOnly)
        #expect(result.reason == .unsupportedFormat)
        #expect(result.content.attachments.isEmpty)
    }

    @Test func overlappingRequestsOnOneInstanceEachGetTheirOwnContentExactlyOnce() async throws {
        let setup = try await Setup(deadline: 25)
        defer { setup.cleanUp() }
        let service = RichPushServiceExtension(configuration: setup.configuration)
        // A's budget ends at 5 s; D starts at 4 s, so A's expiry reaches D about 1 s into its run,
        // while D's own budget would only run out 5 s into it: 4 s apart, room for a loaded machine.
        let reports = await ExtensionHost(storeDirectory: setup.store, budget: 5, expiryGrace: 1).run(
            [
                HostedRequest(try setup.article000(imagePath: "/hang", title: "A stalls"), startAfter: 0),
                HostedRequest(try setup.article000(imagePath: "/media/photo.jpg", title: "B photo"), startAfter: 0.2),
                HostedRequest(try setup.article000(imagePath: "/media/logo.png", title: "C logo"), startAfter: 0.3),
                HostedRequest(try setup.article000(imagePath: "/hang", title: "D stalls too"), startAfter: 4),
            ], on: service)

        #expect(reports.map(\.shown.title) == ["A stalls", "B photo", "C logo", "D stalls too"])
        #expect(reports.map(\.handlerCalls) == [1, 1, 1, 1])
        #expect(reports.map(\.shownOriginal) == [false, false, false, false])
        #expect(reports.flatMap(\.faults).isEmpty)
        #expect(reports.map { $0.shown.attachments.map(\.type) } == [[], ["public.jpeg"], ["public.png"], []])
        #expect(reports[1].shown.attachments.first?.bytes == 89_696)
        #expect(try reports[2].shown.attachments.first?.bytes == Data(contentsOf: Fixtures.media("logo.png")).count)
        // A's expiry delivered D too, before D's own budget ran out.
        #expect(reports[0].expiryCalled && reports[3].expiryCalled)
        #expect(reports[3].elapsedMs < 4_000, "D delivered after \(reports[3].elapsedMs) ms")
        #expect(setup.filesLeftInExtensionFolder().isEmpty)
    }
}
#endif
