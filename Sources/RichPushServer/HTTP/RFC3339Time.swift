@_spi(RichPushInternal) import RichPushCore

/// RFC 3339 date-times (§5.6), read exactly: `2026-12-02T09:00:00Z`, `2026-12-02T10:00:00.250+01:00`.
///
/// Four-digit year, two-digit month, day, hour, minute and second, a day that exists in its month
/// (29 February only in leap years), a second of 60 only where a leap second can be (23:59:60 UTC),
/// optional fractional seconds (at most 9 digits), and a zone: `Z` or `±hh:mm` with hh ≤ 23 and
/// mm ≤ 59 (`T` and `Z` in either case). Nothing before or after: no spaces, no week dates, no
/// missing seconds (Foundation's ISO8601DateFormatter accepted a leading space and `+99:00`, and
/// refused the leap second).
enum RFC3339Time {
    /// The time as ms since 1970 (a leap second counts as the next second, as Unix time does), or
    /// `nil` when `text` is not an RFC 3339 date-time.
    ///
    /// - Parameter text: the text.
    /// - Returns: ms since 1970 UTC (negative before 1970), or `nil`.
    static func milliseconds(_ text: String) -> Int? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 64 else { return nil }
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var value = 0
            for i in at..<(at + count) {
                guard (48...57).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        func byte(_ at: Int, _ expected: Character) -> Bool {
            at < b.count && Character(Unicode.Scalar(b[at])).lowercased() == expected.lowercased()
        }
        guard let year = digits(0, 4), byte(4, "-"), let month = digits(5, 2), byte(7, "-"), let day = digits(8, 2), byte(10, "T"),
            let hour = digits(11, 2), byte(13, ":"), let minute = digits(14, 2), byte(16, ":"), let second = digits(17, 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month, year: year)).contains(day), hour <= 23, minute <= 59, second <= 60 else { return nil }
        var i = 19
        var nanoseconds = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
            let count = i - start
            guard count >= 1, count <= 9, let fraction = digits(start, count) else { return nil }
            nanoseconds = fraction * Int(pow10(9 - count))
        }
        var offsetMinutes = 0
        if byte(i, "Z") {
            i += 1
        } else {
            guard i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-"), let h = digits(i + 1, 2), byte(i + 3, ":"),
                let m = digits(i + 4, 2), h <= 23, m <= 59
            else { return nil }
            offsetMinutes = (h * 60 + m) * (b[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        }
        guard i == b.count else { return nil }
        // Minutes since 1970 in UTC, then the seconds.
        let minutes = daysSince1970(year: year, month: month, day: day) * 1440 + hour * 60 + minute - offsetMinutes
        // A leap second is 23:59:60 UTC (the last minute of a UTC day), nowhere else.
        if second == 60 {
            let utcMinuteOfDay = ((minutes % 1440) + 1440) % 1440
            guard utcMinuteOfDay == 1439 else { return nil }
        }
        return (minutes * 60 + second) * 1000 + nanoseconds / 1_000_000
    }

    private static func pow10(_ n: Int) -> Int {
        var v = 1
        for _ in 0..<n { v *= 10 }
        return v
    }

    static func daysIn(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The time in UTC with milliseconds, as every time the API answers:
    /// `2026-12-03T22:00:22.000Z` (`RFC3339Timestamp`: what Foundation's `ISO8601DateFormatter`
    /// writes, without making one per value).
    ///
    /// - Parameter milliseconds: ms since 1970 UTC (negative before 1970).
    /// - Returns: the RFC 3339 date-time.
    static func format(milliseconds: Int) -> String {
        RFC3339Timestamp.string(milliseconds: milliseconds)
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian; Howard Hinnant's days_from_civil).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
