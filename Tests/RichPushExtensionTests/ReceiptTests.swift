import Foundation
@_spi(RichPushInternal) import RichPushExtension
import RichPushTestSupport
import Testing

@Suite("Receipts to a real listener")
struct ReceiptTests {
    @Test("a real listener receives push_id=2018001 first for article 000's payload")
    func article000Receipt() async throws {
        let server = try await MediaServer.get()
        var configuration = try testConfiguration()
        configuration.receiptsURL = server.receiptsURL
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let c = try #require(FixturePayloadTests.cases.first { $0.payload == "seed000-image-and-stats.json" })
        let run = NotificationPipeline(configuration: configuration).start(
            payload: try FixturePayloadTests.localPayload(c, server: server), deliver: { _ in })
        let result = await run.result()
        let final = await run.waitUntilSettled()
        #expect(result.outcome == .mediaAttached)
        #expect(final.status == .sent)
        #expect(final.httpStatus == 200)
        let receiptID = try #require(final.receiptID)
        let receipts = try await server.receipts()
        let body = try #require(receipts.first { $0.contains("receipt_id=\(receiptID)") })
        #expect(body.hasPrefix("push_id=2018001&"))
        let fields = Dictionary(
            uniqueKeysWithValues: body.split(separator: "&").map { pair -> (String, String) in
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                return (kv[0], (kv.count > 1 ? kv[1] : "").removingPercentEncoding ?? "")
            })
        #expect(fields["event"] == "delivered")
        #expect(fields["outcome"] == "media_attached")
        #expect(fields["media_bytes"] == "89696")
        #expect(fields["media_type"] == "public.jpeg")
        #expect(fields["reason"] == nil)
    }

    @Test("the receipt answer is in the delivered result when it comes in time")
    func receiptInResult() async throws {
        let server = try await MediaServer.get()
        var configuration = try testConfiguration()
        configuration.receiptsURL = server.receiptsURL
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let result = await NotificationPipeline(configuration: configuration).process(payload: mediaPayload(server.url("/404json"), pushID: "r-404"))
        #expect(result.reason == .httpStatus)
        #expect(result.receipt.status == .sent)
        #expect(result.receipt.httpStatus == 200)
        let bodies = try await server.receipts().filter { $0.hasPrefix("push_id=r-404&") }
        #expect(bodies.count == 1)
        #expect(bodies.first?.contains("reason=http_status") == true)
    }

    @Test("a receipts server answering 500 is failed with its status")
    func receiptServerError() async throws {
        let server = try await MediaServer.get()
        var configuration = try testConfiguration()
        configuration.receiptsURL = server.urlValue("/receipts-500")
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let result = await NotificationPipeline(configuration: configuration).process(payload: mediaPayload(server.url("/media/photo.jpg"), pushID: "r-500"))
        #expect(result.outcome == .mediaAttached)
        #expect(result.receipt.status == .failed)
        #expect(result.receipt.httpStatus == 500)
    }

    @Test("a receipts server that never answers does not hold delivery past the receipt wait")
    func receiptServerHangs() async throws {
        let server = try await MediaServer.get()
        var configuration = try testConfiguration(deadline: 8)
        configuration.receiptsURL = server.urlValue("/receipts-hang")
        configuration.receiptWait = 0.5
        configuration.receiptTimeout = 7
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let (result, seconds, run) = await runTimed(mediaPayload(server.url("/media/photo.jpg"), pushID: "r-hang"), configuration: configuration)
        #expect(result.outcome == .mediaAttached)
        #expect(result.receipt.status == .pending)
        // From the decision (elapsedMs) to delivery: the receipt wait (0.5 s), not the whole receipt
        // timeout (7 s); the bound leaves room for a loaded 2-core machine's scheduling delays
        // (seen up to 2.5 s), and one that waited for the timeout would still exceed it.
        let held = seconds - Double(result.elapsedMs) / 1000
        #expect(held < 5.0, "delivery came \(held) s after the decision")
        let final = await run.waitUntilSettled()
        #expect(final.status == .failed)
    }

    @Test("a skipped or refused receipt names the extension's setting (receiptsURL, allowedHTTPHosts), no command-line option")
    func receiptNamesTheSetting() async throws {
        let server = try await MediaServer.get()
        var configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let noURL = await NotificationPipeline(configuration: configuration).process(payload: mediaPayload(server.url("/media/photo.jpg"), pushID: "x"))
        #expect(noURL.receipt.status == .skipped)
        #expect(noURL.receipt.setting == "receiptsURL")
        #expect(noURL.receipt.skipReason?.setting == "receiptsURL")
        let skipMessage = try #require(noURL.receipt.skipReason?.message)
        #expect(skipMessage.contains("RichPushConfiguration.receiptsURL") && !skipMessage.contains("--"), "\(skipMessage)")
        // http to a host ATS does not allow: refused before any request, naming the setting that allows it.
        configuration.receiptsURL = URL(string: "http://receipts.example/v1/receipts")
        let (_, _, run) = await runTimed(mediaPayload(server.url("/media/photo.jpg"), pushID: "x"), configuration: configuration)
        let refused = await run.waitUntilSettled()
        #expect(refused.status == .failed)
        #expect(refused.setting == "allowedHTTPHosts")
        let error = try #require(refused.error)
        #expect(error.hasPrefix("insecure_scheme: http to receipts.example needs an ATS exception") && !error.contains("--"), "\(error)")
    }

    @Test("no receipts URL or no push id skips the receipt")
    func skipped() async throws {
        let server = try await MediaServer.get()
        var configuration = try testConfiguration()
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let noURL = await NotificationPipeline(configuration: configuration).process(payload: mediaPayload(server.url("/media/photo.jpg"), pushID: "x"))
        #expect(noURL.receipt.status == .skipped)
        #expect(noURL.receipt.skipReason?.code == .noReceiptsURL)
        #expect(noURL.receipt.skipReason?.message.contains("ReceiptsURL") == true)
        configuration.receiptsURL = server.receiptsURL
        let noID = await NotificationPipeline(configuration: configuration).process(payload: mediaPayload(server.url("/media/photo.jpg")))
        #expect(noID.receipt.status == .skipped)
        // The reason says what was looked at, so the sender knows which key to add.
        let reason = try #require(noID.receipt.skipReason)
        #expect(reason.code == .noPushID)
        #expect(reason.message.contains("looked at \(RichPushPayloadKeyPath.defaultPushIDKeyPaths.map(\.description).joined(separator: ", "))"))
    }

    @Test("a skipped receipt's reason is in the log line and survives the shared-state flush")
    func skipReasonLoggedWithState() async throws {
        let server = try await MediaServer.get()
        var configuration = try testConfiguration()
        configuration.receiptsURL = server.receiptsURL
        configuration.stateDirectory = try Fixtures.temporaryDirectory("richpush-state")
        let lines = LogLines()
        configuration.logger = RichPushLogger { lines.append($0) }
        defer {
            try? FileManager.default.removeItem(at: configuration.attachmentsDirectory)
            if let state = configuration.stateDirectory { try? FileManager.default.removeItem(at: state) }
        }
        let run = NotificationPipeline(configuration: configuration).start(payload: mediaPayload(server.url("/media/photo.jpg"))) { _ in }
        let result = await run.result()
        let final = await run.waitUntilSettled()
        #expect(result.receipt.skipReason?.code == .noPushID)
        #expect(final.skipReason?.code == .noPushID)
        let line = try #require(lines.all.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["receipt"] as? String == "skipped")
        #expect(object["receipt_skip"] as? String == "no_push_id")
    }

    @Test("a cleartext receipts URL without an ATS exception fails without a request")
    func receiptATS() async throws {
        let server = try await MediaServer.get()
        var configuration = try testConfiguration()
        configuration.allowedHTTPHosts = []
        configuration.receiptsURL = server.receiptsURL
        defer { try? FileManager.default.removeItem(at: configuration.attachmentsDirectory) }
        let result = await NotificationPipeline(configuration: configuration).process(payload: mediaPayload("https://127.0.0.1:9/a.jpg", pushID: "r-ats"))
        #expect(result.receipt.status == .failed)
        let receipts = try await server.receipts()
        #expect(receipts.allSatisfy { !$0.hasPrefix("push_id=r-ats&") })
    }
}

/// Log lines collected by a test's `RichPushLogger`.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ line: String) { lock.withLock { storage.append(line) } }
    var all: [String] { lock.withLock { storage } }
}
