import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

/// Counts what a transport hands over, and stops after a number of bytes.
final class CountingReceiver: MediaResponseReceiver, @unchecked Sendable {
    private let lock = NSLock()
    private var heads: [MediaResponseHead] = []
    private var bytes = 0
    private let stopAfter: Int

    init(stopAfter: Int = .max) { self.stopAfter = stopAfter }

    func receive(head: MediaResponseHead) -> Bool {
        lock.withLock { heads.append(head) }
        return true
    }

    func receive(body chunk: UnsafeRawBufferPointer) -> Bool {
        lock.withLock {
            bytes += chunk.count
            return bytes < stopAfter
        }
    }

    var received: (heads: [MediaResponseHead], bytes: Int) { lock.withLock { (heads, bytes) } }
}

/// What the pipeline relies on from any transport, checked against both.
@Suite("Media transport contract")
struct TransportContractTests {
    @Test("a transport reports a redirect as a response and never follows it", arguments: TransportKind.allCases)
    func noRedirectFollowing(_ t: TransportKind) async throws {
        let server = try await MediaServer.get("transport")
        let receiver = CountingReceiver()
        try await t.make().fetch(MediaRequest(url: server.urlValue("/redirect-to-image"), timeout: .seconds(5)), receiver: receiver)
        let (heads, _) = receiver.received
        #expect(heads.map(\.statusCode) == [302])
        #expect(heads.first?.location == "/media/photo.jpg")
    }

    @Test("a transport stops when the receiver says so, and hands over nothing after it returns", arguments: TransportKind.allCases)
    func stopsOnRequest(_ t: TransportKind) async throws {
        let server = try await MediaServer.get("transport")
        let receiver = CountingReceiver(stopAfter: 1_000_000)
        try await t.make().fetch(MediaRequest(url: server.urlValue("/big14-nolength"), timeout: .seconds(10)), receiver: receiver)
        let atReturn = receiver.received.bytes
        #expect(atReturn >= 1_000_000)
        #expect(atReturn < 14_000_000)
        try await Task.sleep(for: .milliseconds(300))
        #expect(receiver.received.bytes == atReturn)
    }

    @Test("a transport gives the whole body and Content-Length for a plain 200", arguments: TransportKind.allCases)
    func wholeBody(_ t: TransportKind) async throws {
        let server = try await MediaServer.get("transport")
        let receiver = CountingReceiver()
        try await t.make().fetch(MediaRequest(url: server.urlValue("/media/photo.jpg"), timeout: .seconds(5)), receiver: receiver)
        let (heads, bytes) = receiver.received
        #expect(heads.first?.statusCode == 200)
        #expect(heads.first?.contentLength == 89_696)
        #expect(heads.first?.headers["content-type"] == "image/jpeg")
        #expect(bytes == 89_696)
    }

    @Test("a transport returns promptly when its task is cancelled", arguments: TransportKind.allCases)
    func cancellation(_ t: TransportKind) async throws {
        let server = try await MediaServer.get("transport")
        let transport = t.make()
        let url = server.urlValue("/hang")
        let task = Task { () -> MediaTransportError.Code? in
            do {
                try await transport.fetch(MediaRequest(url: url, timeout: .seconds(20)), receiver: CountingReceiver())
                return nil
            } catch {
                return (error as? MediaTransportError)?.code
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        let clock = ContinuousClock()
        let before = clock.now
        task.cancel()
        let code = await task.value
        #expect(code == .cancelled)
        // Without the cancel the fetch would run into its 20 s timeout (the server never
        // answers): half of that tells the two apart however loaded the machine is.
        #expect(clock.now - before < .seconds(10), "returned \(clock.now - before) after the cancel")
    }

    @Test("the receipt never holds delivery past the deadline", arguments: TransportKind.allCases)
    func receiptWithinDeadline(_ t: TransportKind) async throws {
        let server = try await MediaServer.get("transport")
        var configuration = try testConfiguration(deadline: 1.5)
        configuration.receiptsURL = server.urlValue("/receipts-hang")
        // A receipt wait and timeout far past the deadline: a delivery that waited for the
        // receipt would come after 11.5 s, one at the deadline within its slack.
        configuration.receiptWait = 10
        configuration.receiptTimeout = 10
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let (result, seconds, _) = await runTimed(mediaPayload(server.url("/drip"), pushID: "r-deadline"), configuration: configuration, transport: t)
        #expect(result.reason == .timeout)
        #expect(result.receipt.status == .pending)
        #expect(seconds < 1.5 + deliverySlack, "delivered after \(seconds) s")
    }
}
