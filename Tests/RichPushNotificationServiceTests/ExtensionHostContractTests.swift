#if !canImport(UserNotifications)
import Foundation
import RichPushExtensionHost
import RichPushTestSupport
import Testing
import UserNotificationsStandIn

/// The host holds an extension to iOS's rules: one handler call, the budget, the expiry call,
/// attachments moved into its own store.
@Suite struct ExtensionHostContractTests {
    private func request(title: String = "新しい記事をおすすめします", identifier: String = UUID().uuidString) throws -> UNNotificationRequest {
        let payload = #"{"aps":{"alert":{"title":"\#(title)","body":"今すぐ確認"},"mutable-content":1,"sound":"default","badge":0}}"#
        return PushRequest.make(payload: Data(payload.utf8), identifier: identifier)
    }

    @Test func anExtensionThatNeverCallsTheHandlerGetsTheOriginalShownAtTheBudget() async throws {
        let store = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: store) }
        let host = ExtensionHost(storeDirectory: store, budget: 0.3, expiryGrace: 0.2)
        let report = await host.run(try request(), on: NeverCallingExtension())
        #expect(report.shownOriginal)
        #expect(report.expiryCalled)
        #expect(report.handlerCalls == 0)
        #expect(report.shown.title == "新しい記事をおすすめします")
        #expect(report.shown.body == "今すぐ確認")
        #expect(report.shown.sound == "default")
        #expect(report.shown.badge == 0)
        #expect(report.faults.map(\.code) == [.handlerNeverCalled])
        // Shown no earlier than budget + grace.
        #expect(report.elapsedMs >= 500)
    }

    @Test func aSecondHandlerCallIsAFaultAndTheFirstContentIsKept() async throws {
        let store = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: store) }
        let host = ExtensionHost(storeDirectory: store, budget: 5)
        let report = await host.run(try request(), on: TwiceCallingExtension())
        #expect(report.shown.title == "first")
        #expect(report.handlerCalls == 2)
        #expect(report.faults.map(\.code) == [.handlerCalledTwice])
        #expect(!report.shownOriginal)
        #expect(!report.expiryCalled)
    }

    @Test func aSlowExtensionIsAskedToExpireAndItsBestAttemptIsShown() async throws {
        let store = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: store) }
        let host = ExtensionHost(storeDirectory: store, budget: 0.3, expiryGrace: 1)
        let service = SlowExtension()
        let report = await host.run(try request(), on: service)
        #expect(service.expiryCalls == 1)
        #expect(report.expiryCalled)
        #expect(!report.shownOriginal)
        #expect(report.handlerCalls == 1)
        #expect(report.shown.title == "[best attempt] 新しい記事をおすすめします")
        #expect(report.faults.isEmpty)
    }

    @Test func oneExpiryCallCoversEveryRequestInFlightOnTheInstance() async throws {
        let store = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: store) }
        let host = ExtensionHost(storeDirectory: store, budget: 0.5, expiryGrace: 1)
        let service = SlowExtension()
        let reports = await host.run(
            [HostedRequest(try request(title: "A"), startAfter: 0), HostedRequest(try request(title: "B"), startAfter: 0.2)],
            on: service)
        #expect(reports.map(\.shown.title) == ["[best attempt] A", "[best attempt] B"])
        #expect(reports.map(\.handlerCalls) == [1, 1])
        #expect(reports.allSatisfy { $0.expiryCalled })
        // B was delivered by A's expiry call, before its own budget ran out.
        #expect(service.expiryCalls == 1)
    }

    @Test func shownAttachmentsAreMovedIntoTheHostStore() async throws {
        let store = try Fixtures.temporaryDirectory()
        let work = try Fixtures.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: store)
            try? FileManager.default.removeItem(at: work)
        }
        let file = work.appendingPathComponent("photo.jpg")
        try FileManager.default.copyItem(at: Fixtures.media("photo.jpg"), to: file)
        let host = ExtensionHost(storeDirectory: store, budget: 5)
        let report = await host.run(try request(), on: AttachingExtension(file: file))
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let moved = try #require(report.attachmentsMovedTo.first)
        #expect(moved.hasPrefix(store.path))
        #expect(FileManager.default.fileExists(atPath: moved))
        let attachment = try #require(report.shown.attachments.first)
        #expect(attachment.type == "public.jpeg")
        #expect(attachment.bytes == 89_696)
        #expect(attachment.file.path == moved)
    }

    @Test func thePeakMemoryIsReported() async throws {
        let store = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: store) }
        let report = await ExtensionHost(storeDirectory: store, budget: 5).run(try request(), on: TwiceCallingExtension())
        let peak = try #require(report.peakMemoryBytes)
        #expect(peak > 1_000_000)
        #expect(peak == report.peakMemoryBytes)
        #expect(ProcessMemory.extensionLimitBytes == 25_165_824)
    }
}
#endif
