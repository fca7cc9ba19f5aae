import Foundation
@_spi(RichPushInternal) import RichPushCore
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// Issue 30: the pipeline's side of a communication notification with the platform part given
/// as a hook (on iOS `RichPushServiceExtension` makes the intent there): what the hook receives,
/// and each way the intent can fail.
@Suite("A message's intent hook")
struct MessageIntentTests {
    /// Records what the hook was given.
    final class Received: Sendable {
        let messages = Locked<[PreparedMessage]>([])
    }

    static func group(avatar: String, groupAvatar: String) -> RichPushJSONValue {
        .object([
            "aps": .object(["alert": .object(["title": .string("Engine room"), "body": .string("It runs!")]), "mutable-content": .int(1)]),
            "sender": .object(["id": .int(42), "name": .string("Ada Lovelace"), "avatar": .string(avatar)]),
            "conversation": .object(["id": .string("c-7"), "name": .string("Engine room"), "avatar": .string(groupAvatar), "group": .bool(true)]),
        ])
    }

    func run(
        _ payload: RichPushJSONValue, deadline: Double = 20, intent: (@Sendable (PreparedMessage) async throws -> Void)?
    ) async throws -> RichPushResult {
        let configuration = try testConfiguration(deadline: deadline)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let pipeline = NotificationPipeline(configuration: configuration)
        let run = pipeline.start(payload: payload, intent: intent) { _ in }
        let result = await run.result()
        await run.waitUntilSettled()
        #expect(filesLeft(in: configuration.attachmentsDirectory).isEmpty)
        return result
    }

    @Test func theHookGetsBothAvatarsAsDataAndTheMessageIsShown() async throws {
        let server = try await MediaServer.get("avatars")
        let received = Received()
        let result = try await run(Self.group(avatar: server.url("/media/photo.jpg"), groupAvatar: server.url("/media/logo.png"))) { prepared in
            received.messages.withLock { $0.append(prepared) }
        }
        let prepared = try #require(received.messages.withLock { $0 }.first)
        #expect(prepared.message.sender == RichPushMessage.Sender(id: "42", name: "Ada Lovelace", avatar: server.url("/media/photo.jpg")))
        #expect(prepared.message.conversation.isGroup)
        #expect(prepared.message.conversation.name == "Engine room")
        #expect(prepared.text == "It runs!")
        #expect(prepared.senderAvatar?.data == (try Data(contentsOf: Fixtures.media("photo.jpg"))))
        #expect(prepared.senderAvatar?.format == .jpeg)
        #expect(prepared.conversationAvatar?.data == (try Data(contentsOf: Fixtures.media("logo.png"))))
        #expect(prepared.conversationAvatar?.converted == false)
        #expect(result.reason == .noMedia)
        let communication = try #require(result.details.communication)
        #expect(communication.shown)
        #expect(communication.fallback == nil)
        #expect(communication.senderAvatar?.bytes == 89_696)
        #expect(communication.conversationAvatar?.bytes == 1_906)
        #expect(communication.conversationAvatar?.type == "public.png")
    }

    @Test func aHookThatThrowsFallsBackWithIntentFailed() async throws {
        let server = try await MediaServer.get("avatars")
        struct Refused: Error, CustomStringConvertible { var description: String { "the system refused the donation" } }
        let result = try await run(Self.group(avatar: server.url("/media/photo.jpg"), groupAvatar: server.url("/media/logo.png"))) { _ in
            throw Refused()
        }
        #expect(result.reason == .intentFailed)
        #expect(result.details.communication?.shown == false)
        #expect(result.details.communication?.fallback == .intentFailed)
        #expect(result.details.communication?.note?.contains("the system refused the donation") == true)
        // The avatars had arrived: they are reported though the intent failed.
        #expect(result.details.communication?.senderAvatar?.bytes == 89_696)
    }

    @Test func aHookStillRunningAtTheDeadlineFallsBackWithIntentFailed() async throws {
        // No avatar to fetch: the hook starts at once and is still running at the deadline.
        let payload: RichPushJSONValue = .object([
            "aps": .object(["alert": .string("It runs!"), "mutable-content": .int(1)]),
            "sender": .object(["id": .string("u-42"), "name": .string("Ada Lovelace")]),
        ])
        let result = try await run(payload, deadline: 2) { _ in
            try await Task.sleep(for: .seconds(30))
        }
        #expect(result.reason == .intentFailed)
        #expect(result.details.communication?.note?.contains("before the intent was donated") == true)
    }

    @Test func aGroupAvatarThatFailsFallsBackThoughTheSendersArrived() async throws {
        let server = try await MediaServer.get("avatars")
        let result = try await run(Self.group(avatar: server.url("/media/photo.jpg"), groupAvatar: server.url("/500html"))) { _ in
            Issue.record("the hook must not run when an avatar failed")
        }
        #expect(result.reason == .avatarFailed)
        #expect(result.details.communication?.note?.contains("(http_status)") == true)
    }

    @Test func aMalformedSenderIsIntentFailedWithoutAnyRequest() async throws {
        let payload: RichPushJSONValue = .object([
            "aps": .object(["alert": .string("hi"), "mutable-content": .int(1)]),
            "sender": .object(["name": .string("No id")]),
        ])
        let result = try await run(payload) { _ in Issue.record("no intent for a sender without an id") }
        #expect(result.reason == .intentFailed)
        #expect(result.details.communication?.message == nil)
        #expect(result.details.communication?.note == "sender.id: `sender.id` is missing; give the app's stable id (a string)")
    }

    @Test func withoutAHookTheMessageAndItsAvatarAreReportedAndNoIntentIsMade() async throws {
        let server = try await MediaServer.get("avatars")
        let result = try await run(Self.group(avatar: server.url("/media/photo.jpg"), groupAvatar: server.url("/media/logo.png")), intent: nil)
        #expect(result.reason == .noMedia)
        #expect(result.details.communication?.shown == false)
        #expect(result.details.communication?.fallback == nil)
        #expect(result.details.communication?.senderAvatar?.bytes == 89_696)
    }

    @Test func communicationNotificationsOffLeaveTheSenderAlone() async throws {
        var configuration = try testConfiguration()
        configuration.communicationNotifications = false
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let result = await NotificationPipeline(configuration: configuration).process(
            payload: Self.group(avatar: "https://127.0.0.1:1/a.jpg", groupAvatar: "https://127.0.0.1:1/b.png"))
        #expect(result.details.communication == nil)
        #expect(result.reason == .noMedia)
    }
}
