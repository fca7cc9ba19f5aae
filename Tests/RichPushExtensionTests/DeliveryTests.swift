import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// Counts deliveries from any thread.
final class DeliveryCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [RichPushResult] = []
    func record(_ r: RichPushResult) {
        lock.lock(); results.append(r); lock.unlock()
    }
    var all: [RichPushResult] {
        lock.lock(); defer { lock.unlock() }
        return results
    }
}

/// A one-shot signal a test can wait on (the validate hook has started).
final class Signal: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false
    func fire() { lock.lock(); fired = true; lock.unlock() }
    func wait(seconds: Double) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if lock.withLock({ fired }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

@Suite("Delivering exactly once")
struct DeliveryTests {
    @Test("expire() delivers the best attempt at once, exactly once, and the late fetch leaves no file", arguments: TransportKind.allCases)
    func expireDuringFetch(_ t: TransportKind) async throws {
        let server = try await MediaServer.get()
        let configuration = try testConfiguration(deadline: 10)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let counter = DeliveryCounter()
        let pipeline = NotificationPipeline(configuration: configuration, transport: t.make())
        let run = pipeline.start(payload: mediaPayload(server.url("/drip"))) { counter.record($0) }
        try await Task.sleep(for: .milliseconds(300))
        let clock = ContinuousClock()
        let before = clock.now
        run.expire()
        let result = await run.result()
        // "At once" against a 10 s deadline and a server that drips for longer: half the deadline
        // tells the two apart with room for a loaded 2-core machine's scheduling delays.
        #expect(clock.now - before < .seconds(5), "delivered \(clock.now - before) after expire()")
        run.expire()
        await run.waitUntilSettled()
        #expect(counter.all.count == 1)
        #expect(result.outcome == .textOnly)
        #expect(result.reason == .timeout)
        #expect(result.content.title == "New article")
        #expect(filesLeft(in: configuration.attachmentsDirectory).isEmpty)
    }

    @Test("expire() after delivery changes nothing")
    func expireAfterDelivery() async throws {
        let server = try await MediaServer.get()
        let configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let counter = DeliveryCounter()
        let run = NotificationPipeline(configuration: configuration).start(payload: mediaPayload(server.url("/media/photo.jpg"))) { counter.record($0) }
        let result = await run.result()
        run.expire()
        run.expire()
        await run.waitUntilSettled()
        #expect(result.outcome == .mediaAttached)
        #expect(counter.all == [result])
        #expect(filesLeft(in: configuration.attachmentsDirectory).count == 1)
    }

    @Test("the best attempt is built before any network work")
    func bestAttemptFirst() async throws {
        var configuration = try testConfiguration()
        configuration.deadline = 5
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let server = try await MediaServer.get()
        let payload: RichPushJSONValue = .object([
            "aps": .object(["alert": .object(["title": .string("Sale"), "body": .string("")]), "mutable-content": .int(1), "thread-id": .string("t1")]),
            "image-url": .string(server.url("/hang")),
        ])
        let run = NotificationPipeline(configuration: configuration).start(payload: payload) { _ in }
        #expect(run.bestAttempt.outcome == .textOnly)
        #expect(run.bestAttempt.content.title == "Sale")
        #expect(run.bestAttempt.content.body == "")
        #expect(run.bestAttempt.content.threadIdentifier == "t1")
        #expect(run.bestAttempt.receipt.status == .pending)
        run.expire()
        let result = await run.result()
        #expect(result.content == run.bestAttempt.content)
    }

    @Test("a completion after expire() is ignored and its file removed")
    func lateCompletionRemovesFiles() async throws {
        let server = try await MediaServer.get()
        let configuration = try testConfiguration(deadline: 10)
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let entered = Signal()
        let counter = DeliveryCounter()
        let pipeline = NotificationPipeline(configuration: configuration)
        let run = pipeline.start(
            payload: mediaPayload(server.url("/media/photo.jpg")),
            validate: { media in
                #expect(FileManager.default.fileExists(atPath: media.file.path))
                entered.fire()
                try? await Task.sleep(for: .milliseconds(500))
            }, deliver: { counter.record($0) })
        #expect(await entered.wait(seconds: 5))
        run.expire()
        let result = await run.result()
        await run.waitUntilSettled()
        #expect(result.outcome == .textOnly)
        #expect(result.reason == .timeout)
        #expect(counter.all.count == 1)
        #expect(filesLeft(in: configuration.attachmentsDirectory).isEmpty)
    }

    @Test("the validate hook sees the finished file, and its refusal becomes the reason")
    func validateHook() async throws {
        let server = try await MediaServer.get()
        let configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let pipeline = NotificationPipeline(configuration: configuration)
        let accepted = await pipeline.start(
            payload: mediaPayload(server.url("/media/logo.png")),
            validate: { (media: RichPushDownloadedMedia) async throws in
                #expect(media.format == .png)
                #expect(media.bytes == 1_906)
                #expect(try Data(contentsOf: media.file).count == 1_906)
            }, deliver: { _ in }
        ).result()
        #expect(accepted.outcome == .mediaAttached)

        let refused = await pipeline.start(
            payload: mediaPayload(server.url("/media/photo.jpg")),
            validate: { _ in
                throw RichPushMediaValidationError(reason: .tooLarge, message: "the system said no")
            }, deliver: { _ in }
        ).result()
        #expect(refused.outcome == .textOnly)
        #expect(refused.reason == .tooLarge)
        #expect(refused.content.attachments.isEmpty)

        struct Other: Error {}
        let other = await pipeline.start(payload: mediaPayload(server.url("/media/photo.jpg")), validate: { _ in throw Other() }, deliver: { _ in }).result()
        #expect(other.reason == .unsupportedFormat)
        // Only the accepted PNG is left.
        #expect(filesLeft(in: configuration.attachmentsDirectory).count == 1)
    }

    @Test("two notifications whose URLs both end in image.jpg get different files with their own bytes")
    func sameFileNameDifferentBytes() async throws {
        let server = try await MediaServer.get()
        let configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let pipeline = NotificationPipeline(configuration: configuration)
        async let a = pipeline.process(payload: mediaPayload(server.url("/twin/a/image.jpg")))
        async let b = pipeline.process(payload: mediaPayload(server.url("/twin/b/image.jpg")))
        let (ra, rb) = await (a, b)
        let fa = try #require(ra.content.attachments.first)
        let fb = try #require(rb.content.attachments.first)
        #expect(fa.file != fb.file)
        #expect(URL(fileURLWithPath: fa.file).deletingLastPathComponent() != URL(fileURLWithPath: fb.file).deletingLastPathComponent())
        #expect(try Data(contentsOf: URL(fileURLWithPath: fa.file)) == Data(contentsOf: Fixtures.media("photo.jpg")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: fb.file)) == Data(contentsOf: Fixtures.media("progressive.jpg")))
    }

    @Test("a payload without media delivers text_only no_media at once, without a file")
    func noMedia() async throws {
        let configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let pipeline = NotificationPipeline(configuration: configuration)
        let result = await pipeline.process(payload: try Fixtures.payload("seed000-basic.json"))
        #expect(result.outcome == .textOnly)
        #expect(result.reason == .noMedia)
        #expect(result.content.body == "今すぐ確認")
        let empty = await pipeline.process(payload: mediaPayload("  "))
        #expect(empty.reason == .noMedia)
        let bad = await pipeline.process(payload: mediaPayload("ftp://example.com/a.jpg"))
        #expect(bad.reason == .badURL)
        #expect(filesLeft(in: configuration.attachmentsDirectory).isEmpty)
    }
}
