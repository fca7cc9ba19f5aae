import Foundation
@_spi(RichPushInternal) import RichPushExtension
import Testing

@Suite("One structured log line per notification")
struct LoggingTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [String] = []
        func append(_ s: String) { lock.lock(); storage.append(s); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return storage }
    }

    @Test func theLineIsOneJSONObjectWithTheMetrics() throws {
        let lines = Lines()
        let logger = RichPushLogger { lines.append($0) }
        logger.log(
            NotificationLogLine(
                pushID: "2018001", outcome: .textOnly, reason: .decryptFailed, detail: "bad_tag", attachments: 0,
                mediaRequested: 1, bytes: 0, fetchMs: 0, totalMs: 12, cacheHits: 0, receipt: "sent"))
        #expect(lines.all.count == 1)
        let line = try #require(lines.all.first)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "richpush.notification")
        #expect(object["push_id"] as? String == "2018001")
        #expect(object["outcome"] as? String == "text_only")
        #expect(object["reason"] as? String == "decrypt_failed")
        #expect(object["detail"] as? String == "bad_tag")
        #expect(object["total_ms"] as? Int == 12)
        #expect(object["fetch_ms"] as? Int == 0)
        #expect(object["bytes"] as? Int == 0)
        #expect(object["receipt"] as? String == "sent")
        #expect(
            Set(object.keys) == [
                "event", "push_id", "outcome", "reason", "detail", "attachments", "media_requested", "bytes", "fetch_ms", "total_ms", "cache_hits", "receipt",
                "receipt_skip", "vendor",
            ])
    }
}
