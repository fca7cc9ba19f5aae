/// RFC 3339 date-times in UTC written arithmetically: `2026-12-03T22:00:22.000Z`.
///
/// What Foundation's `ISO8601DateFormatter` writes (with `.withFractionalSeconds`, or without it),
/// without making a formatter: one made per value cost the recipients export most of its time in
/// ICU, and a send of many tokens that APNs answers 410 made one per answer.
/// Internal to RichPush's modules (`@_spi(RichPushInternal)`).
@_spi(RichPushInternal)
public enum RFC3339Timestamp {
    /// The time as an RFC 3339 date-time in UTC.
    ///
    /// - Parameters:
    ///   - milliseconds: ms since 1970 UTC (negative before 1970).
    ///   - fractional: with milliseconds (`.000`); without, the seconds are truncated.
    /// - Returns: `YYYY-MM-DDTHH:MM:SS[.sss]Z`; a year before 0 or after 9999 is written with its
    ///   sign or its extra digits.
    public static func string(milliseconds: Int, fractional: Bool = true) -> String {
        let (days, msOfDay) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civil(daysSince1970: days)
        var text = year < 0 ? "-" : ""
        text += padded(abs(year), 4) + "-" + padded(month, 2) + "-" + padded(day, 2) + "T"
        text += padded(msOfDay / 3_600_000, 2) + ":" + padded(msOfDay / 60_000 % 60, 2) + ":" + padded(msOfDay / 1000 % 60, 2)
        return text + (fractional ? "." + padded(msOfDay % 1000, 3) : "") + "Z"
    }

    /// The date of a day counted from 1970-01-01 (proleptic Gregorian; Howard Hinnant's
    /// civil_from_days).
    ///
    /// - Parameter days: days since 1970-01-01 (negative before).
    /// - Returns: the year, month (1…12) and day (1…31).
    public static func civil(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivision(_ a: Int, _ b: Int) -> (quotient: Int, remainder: Int) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
