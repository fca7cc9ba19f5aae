import Foundation

/// The `Retry-After` response header (RFC 9110 §10.2.3): seconds, or an HTTP date.
///
/// FCM sends it with 429 `QUOTA_EXCEEDED` and may with 503 `UNAVAILABLE` (Google: "honor the
/// Retry-After header"); a proxy in front of APNs may too.
public enum RetryAfter {
    /// The longest wait RichPush honours, in seconds (a longer one is cut to this).
    public static let maximumSeconds: Double = 60

    /// The wait a `Retry-After` value asks for.
    ///
    /// - Parameters:
    ///   - value: the header value, e.g. `"30"` or `"Wed, 21 Oct 2026 07:28:00 GMT"`.
    ///   - now: the current time, for a date.
    /// - Returns: seconds from now (0…`maximumSeconds`), or `nil` when absent or unreadable.
    public static func seconds(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard let seconds = Double(value) else { return nil }
            return min(seconds, maximumSeconds)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), maximumSeconds)
    }
}
