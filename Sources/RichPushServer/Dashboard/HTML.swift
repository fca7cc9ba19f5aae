import Foundation
@_spi(RichPushInternal) import RichPushCore

/// HTML helpers for the server-rendered pages.
enum HTML {
    /// Escapes `&`, `<`, `>`, `"` and `'` for text and attribute values.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.count)
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// A push or receipt id for display: escaped, and any character `IdentifierRule` refuses
    /// (ids stored before the rule) shown as U+FFFD, so a bidi override cannot reorder the page.
    static func identifier(_ s: String) -> String {
        escape(IdentifierRule.displayable(s))
    }

    /// Percent-encodes text for a URL path segment or query value (RFC 3986 unreserved kept).
    static func urlComponent(_ s: String) -> String {
        var out = ""
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(byte)))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// Milliseconds since 1970 as `2026-11-30 03:27:32` (UTC).
    static func time(_ ms: Int) -> String {
        // `2026-11-30T03:27:32Z` without its `Z`, a space for the `T` (no formatter per cell).
        var text = RFC3339Timestamp.string(milliseconds: ms, fractional: false)
        text.removeLast()
        return text.replacingOccurrences(of: "T", with: " ")
    }

    /// `s` cut to at most `limit` characters, the cut marked with "…".
    ///
    /// - Parameters:
    ///   - s: the text (a push id).
    ///   - limit: the most characters shown, "…" included.
    /// - Returns: `s` itself when it fits.
    static func truncated(_ s: String, _ limit: Int) -> String {
        s.count <= limit ? s : String(s.prefix(max(1, limit - 1))) + "…"
    }

    /// A whole number with thousands separators: 12,345.
    static func number(_ n: Int) -> String {
        let digits = String(abs(n))
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(ch)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// A fraction as a percentage with one decimal: 0.8731 → 87.3 %.
    static func percent(_ x: Double) -> String {
        String(format: "%.1f %%", x * 100)
    }

    /// Bytes in B/KB/MB/GB (10^3 multiples, as Apple states its limits).
    static func bytes(_ n: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(n)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// Milliseconds as "850 ms" or "2.4 s".
    static func duration(ms: Int) -> String {
        ms < 1000 ? "\(ms) ms" : String(format: "%.1f s", Double(ms) / 1000)
    }
}
