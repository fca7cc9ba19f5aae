import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `RFC3339Time.format(milliseconds:)` writes every time the API answers (push pages, the
/// recipients export): it must write what Foundation's `ISO8601DateFormatter` wrote before it, and
/// read back through `RFC3339Time.milliseconds` to the same instant.
@Suite("RFC 3339 times written without a formatter")
struct RFC3339TimeFormatTests {
    static func foundation(_ ms: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    @Test("the edges: 1970, before 1970, leap days, centuries, the end of a day and of a year")
    func edges() {
        let cases: [(Int, String)] = [
            (0, "1970-01-01T00:00:00.000Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (1_709_251_199_999, "2024-02-29T23:59:59.999Z"),
            (4_107_542_399_999, "2100-02-28T23:59:59.999Z"),
            (4_107_542_400_000, "2100-03-01T00:00:00.000Z"),
            (1_798_761_599_123, "2026-12-31T23:59:59.123Z"),
            (-2_208_988_800_000, "1900-01-01T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        ]
        for (ms, text) in cases {
            #expect(RFC3339Time.format(milliseconds: ms) == text)
            #expect(RFC3339Time.milliseconds(text) == ms, "\(text) reads back")
        }
    }

    @Test("the dashboard's cells: `2026-12-31 23:59:59` (UTC, seconds truncated), as its DateFormatter wrote")
    func dashboardCells() {
        #expect(HTML.time(1_798_761_599_999) == "2026-12-31 23:59:59")
        #expect(HTML.time(0) == "1970-01-01 00:00:00")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var generator = SeededGenerator(state: 30)
        for _ in 0..<1_000 {
            let ms = Int(generator.next() % 4_102_444_800_000)
            #expect(HTML.time(ms) == formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000)), "\(ms)")
        }
    }

    @Test("10,000 times from 1900 to 2100 (a fixed seed): the same text as ISO8601DateFormatter, read back to the same ms")
    func sameAsFoundation() {
        var generator = SeededGenerator(state: 29)
        for _ in 0..<10_000 {
            let ms = Int(generator.next() % 6_311_433_600_000) - 2_208_988_800_000
            let text = RFC3339Time.format(milliseconds: ms)
            #expect(text == Self.foundation(ms), "\(ms)")
            #expect(RFC3339Time.milliseconds(text) == ms, "\(text)")
            // Without milliseconds (the APNs answer messages): what a default formatter writes.
            let whole = RFC3339Timestamp.string(milliseconds: ms, fractional: false)
            #expect(whole == ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(ms) / 1000)), "\(ms)")
        }
    }
}
