#if !canImport(UserNotifications)
import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushExtensionHost
@_spi(RichPushInternal) import RichPushNotificationService
import RichPushTestSupport
import Testing
import UserNotificationsStandIn

/// A vendor SDK's service extension as RichPush meets it (the shape of OneSignal's and Braze's):
/// it builds the content itself, attaches its own media or not, and calls the handler when done
/// or when iOS's time runs out.
class VendorSDKService: UNNotificationServiceExtension {
    enum Behaviour: Sendable {
        /// Attaches `photo.jpg` (a copy) and delivers at once.
        case attachesItsOwnMedia
        /// Delivers the text at once, no attachment.
        case textOnly
        /// Waits for `serviceExtensionTimeWillExpire()`, then delivers the text.
        case onlyAtExpiry
    }

    let behaviour: Behaviour
    private let lock = NSLock()
    private var pending: (content: UNMutableNotificationContent, handler: (UNNotificationContent) -> Void)?

    init(_ behaviour: Behaviour) {
        self.behaviour = behaviour
        super.init()
    }

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let content = (request.content.mutableCopy() as? UNMutableNotificationContent) ?? UNMutableNotificationContent()
        content.title = "[vendor] " + content.title
        switch behaviour {
        case .attachesItsOwnMedia:
            if let copy = try? Fixtures.temporaryDirectory("vendor-sdk").appendingPathComponent("photo.jpg"),
                (try? FileManager.default.copyItem(at: Fixtures.media("photo.jpg"), to: copy)) != nil,
                let attachment = try? UNNotificationAttachment(identifier: "vendor", url: copy, options: nil)
            {
                content.attachments = [attachment]
            }
            contentHandler(content)
        case .textOnly:
            contentHandler(content)
        case .onlyAtExpiry:
            lock.withLock { pending = (content, contentHandler) }
        }
    }

    override func serviceExtensionTimeWillExpire() {
        let held = lock.withLock { () -> (UNMutableNotificationContent, (UNNotificationContent) -> Void)? in
            defer { pending = nil }
            return pending.map { ($0.content, $0.handler) }
        }
        if let (content, handler) = held { handler(content) }
    }
}

/// The vendor's class with RichPush added as the Examples show it: two overrides, one line each.
final class VendorWithRichPush: VendorSDKService {
    let richPush: RichPushCompanion

    init(_ behaviour: Behaviour, configuration: RichPushConfiguration, addsMedia: Bool = false) {
        richPush = RichPushCompanion(configuration: configuration, addsMedia: addsMedia)
        super.init(behaviour)
    }

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        super.didReceive(request, withContentHandler: richPush.wrap(request, contentHandler: contentHandler))
    }

    override func serviceExtensionTimeWillExpire() {
        richPush.serviceExtensionTimeWillExpire()
        super.serviceExtensionTimeWillExpire()
    }
}

/// `RichPushCompanion` inside a vendor's service extension, run by the host as iOS runs it.
@Suite(.serialized) struct RichPushCompanionTests {
    struct Setup {
        let server: MediaServer
        let store: URL
        var configuration: RichPushConfiguration

        init() async throws {
            server = try await BridgeMediaServer.get()
            store = try Fixtures.temporaryDirectory("richpush-host-store")
            configuration = RichPushConfiguration()
            configuration.allowedHTTPHosts = ["127.0.0.1"]
            configuration.attachmentsDirectory = try Fixtures.temporaryDirectory("richpush-companion")
            configuration.receiptsURL = server.receiptsURL
            configuration.receiptWait = 10
            configuration.deadline = 10
        }

        func cleanUp() {
            try? FileManager.default.removeItem(at: store)
            try? FileManager.default.removeItem(at: configuration.attachmentsDirectory)
        }

        /// The OneSignal fixture (its notification id replaced by `id`), its media on the local server.
        func oneSignal(id: String) throws -> UNNotificationRequest {
            let text = String(decoding: try Fixtures.payload("vendors/onesignal.json"), as: UTF8.self)
                .replacingOccurrences(of: "5f2b3c4d-6e7f-4a8b-9c0d-1e2f3a4b5c6d", with: id)
                .replacingOccurrences(of: "https://media.example.com/onesignal/photo.jpg", with: server.url("/media/photo.jpg"))
            return PushRequest.make(payload: Data(text.utf8))
        }

        func receipt(for id: String) async throws -> [String: String]? {
            let body = try await server.receipts().first { $0.hasPrefix("push_id=\(id)&") }
            return body.map(VendorReceiptFields.parse)
        }
    }

    @Test func theVendorsAttachmentIsReportedWithItsIdAndVendorAndShownOnce() async throws {
        let setup = try await Setup()
        defer { setup.cleanUp() }
        let id = "os-\(UUID().uuidString.lowercased())"
        let service = VendorWithRichPush(.attachesItsOwnMedia, configuration: setup.configuration)
        let report = await ExtensionHost(storeDirectory: setup.store, budget: 20).run(try setup.oneSignal(id: id), on: service)
        #expect(report.handlerCalls == 1)
        #expect(!report.expiryCalled)
        #expect(report.shown.title == "[vendor] Spring sale")  // the vendor's content, unchanged
        #expect(report.shown.attachments.map(\.identifier) == ["vendor"])
        let fields = try #require(try await setup.receipt(for: id))
        #expect(fields["event"] == "delivered")
        #expect(fields["outcome"] == "media_attached")
        #expect(fields["media_type"] == "public.jpeg")
        #expect(fields["vendor"] == "onesignal")
    }

    @Test func withAddsMediaRichPushAttachesWhatTheVendorDidNot() async throws {
        let setup = try await Setup()
        defer { setup.cleanUp() }
        let id = "os-\(UUID().uuidString.lowercased())"
        let service = VendorWithRichPush(.textOnly, configuration: setup.configuration, addsMedia: true)
        let report = await ExtensionHost(storeDirectory: setup.store, budget: 20).run(try setup.oneSignal(id: id), on: service)
        #expect(report.handlerCalls == 1)
        #expect(report.shown.title == "[vendor] Spring sale")
        #expect(report.shown.attachments.map(\.type) == ["public.jpeg"])
        let fields = try #require(try await setup.receipt(for: id))
        #expect(fields["outcome"] == "media_attached")
        #expect(fields["vendor"] == "onesignal")
        // Without addsMedia the same vendor content is text only, and the receipt says so.
        let plain = "os-\(UUID().uuidString.lowercased())"
        let textReport = await ExtensionHost(storeDirectory: setup.store, budget: 20).run(
            try setup.oneSignal(id: plain), on: VendorWithRichPush(.textOnly, configuration: setup.configuration))
        #expect(textReport.shown.attachments.isEmpty)
        let textFields = try #require(try await setup.receipt(for: plain))
        #expect(textFields["outcome"] == "text_only")
    }

    @Test func atExpiryTheVendorsContentGoesStraightThroughAndIsStillReported() async throws {
        var setup = try await Setup()
        defer { setup.cleanUp() }
        setup.configuration.receiptWait = 30  // longer than the budget: only expiry can end the wait
        let id = "os-\(UUID().uuidString.lowercased())"
        let service = VendorWithRichPush(.onlyAtExpiry, configuration: setup.configuration)
        let clock = ContinuousClock()
        let started = clock.now
        let report = await ExtensionHost(storeDirectory: setup.store, budget: 1).run(try setup.oneSignal(id: id), on: service)
        let seconds = Double((clock.now - started).components.seconds)
        #expect(report.expiryCalled)
        #expect(report.handlerCalls == 1)
        #expect(!report.shownOriginal, "the vendor's content, handed over within the host's grace")
        #expect(seconds < 10)
        // The receipt still goes (its request does not hold delivery).
        var fields: [String: String]?
        for _ in 0..<50 where fields == nil {
            fields = try await setup.receipt(for: id)
            if fields == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(fields?["outcome"] == "text_only")
    }

    @Test func aVendorPayloadWithoutAPushIDIsDeliveredAndItsReceiptSkippedWithTheReason() async throws {
        let setup = try await Setup()
        defer { setup.cleanUp() }
        let text = String(decoding: try Fixtures.payload("vendors/customerio.json"), as: UTF8.self)
        let report = DisplayReceiptProbe()
        let service = VendorWithRichPush(.textOnly, configuration: setup.configuration)
        let shown = await ExtensionHost(storeDirectory: setup.store, budget: 20).run(PushRequest.make(payload: Data(text.utf8)), on: service)
        #expect(shown.handlerCalls == 1)
        // The same report the companion logs: skipped, per delivery.
        let skipped = await report.send(text, configuration: setup.configuration)
        #expect(skipped.status == .skipped)
        #expect(skipped.skipReason?.code == .perDeliveryID)
    }
}

/// `DisplayReceipt.send` on a payload's text, as the companion calls it.
struct DisplayReceiptProbe {
    func send(_ payload: String, configuration: RichPushConfiguration) async -> RichPushReceiptReport {
        let json = (try? RichPushJSONValue.parse(Data(payload.utf8))) ?? .null
        return await DisplayReceipt.send(
            payload: json, outcome: .textOnly, reason: nil, elapsedMs: 1, configuration: configuration, transport: NotificationPipeline.defaultTransport)
    }
}

/// Form fields of a receipt body.
enum VendorReceiptFields {
    static func parse(_ body: String) -> [String: String] {
        Dictionary(
            body.split(separator: "&").map { pair -> (String, String) in
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                return (kv[0], (kv.count > 1 ? kv[1] : "").replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "")
            }, uniquingKeysWith: { first, _ in first })
    }
}
#endif
