#if !canImport(UserNotifications)
import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushExtensionHost
@_spi(RichPushInternal) import RichPushNotificationService
import RichPushTestSupport
import Testing
import UserNotificationsStandIn

/// The bridge as `richpush simulate` runs it, recording what it delivered.
private final class UnreadableRecordingService: RichPushServiceExtension {
    private let lock = NSLock()
    private var delivered: [RichPushResult] = []

    var results: [RichPushResult] { lock.withLock { delivered } }

    override func willDeliver(_ content: UNMutableNotificationContent, for request: UNNotificationRequest, result: RichPushResult) {
        lock.withLock { delivered.append(result) }
    }
}

/// Payload bytes that are not a JSON object reach the real bridge as unreadable, not as `{}`.
@Suite struct UnreadablePayloadThroughHostTests {
    @Test(
        "bytes that are not a JSON object give the original with invalid_payload, the parse error kept",
        arguments: [
            "notjson", "", "[1, 2]", "\"just a string\"",
        ])
    func notAJSONObject(_ text: String) async throws {
        let store = try Fixtures.temporaryDirectory("richpush-host-store")
        defer { try? FileManager.default.removeItem(at: store) }
        var configuration = RichPushConfiguration()
        configuration.attachmentsDirectory = store.appendingPathComponent("extension")
        configuration.logger = .disabled
        let service = UnreadableRecordingService(configuration: configuration)
        let request = PushRequest.make(payload: Data(text.utf8))
        let problem = try #require(request.content.userInfo[NotificationPipeline.unreadablePayloadKey] as? String)
        #expect(problem == PushRequest.problem(with: Data(text.utf8)))
        let report = await ExtensionHost(storeDirectory: store, budget: 30).run(request, on: service)
        #expect(report.handlerCalls == 1)
        let result = try #require(service.results.first)
        #expect(result.outcome == .original)
        #expect(result.reason == .invalidPayload)
        #expect(result.message.contains(problem))
        #expect(report.shown.body.isEmpty, "no default body on an unreadable payload")
    }

    @Test func anEmptyObjectIsStillAPayloadNotAnUnreadableOne() {
        let request = PushRequest.make(payload: Data("{}".utf8))
        #expect(request.content.userInfo.isEmpty)
    }
}
#endif
