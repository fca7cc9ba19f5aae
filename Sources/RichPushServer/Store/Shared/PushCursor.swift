import Foundation

/// A position in a list of pushes, for keyset pagination: the sort key of a row (when the push
/// started, and its id), so the next page starts right after it with an index seek, however deep
/// the page — never an `OFFSET` that reads and skips every row before it.
///
/// As text (`token`): `t<started ms>.<push id in hex>` in newest-first order, `i<push id in hex>`
/// in push-id order (a prefix search). Opaque to clients.
public struct PushCursor: Sendable, Hashable {
    /// When the push started (its first send or receipt, ms since 1970); `nil` in push-id order.
    public var startedMs: Int?
    /// The push id.
    public var pushID: String

    /// Makes a cursor.
    ///
    /// - Parameters:
    ///   - startedMs: the row's start time (newest-first order), or `nil` (push-id order).
    ///   - pushID: the row's push id.
    public init(startedMs: Int?, pushID: String) {
        self.startedMs = startedMs
        self.pushID = pushID
    }

    /// The cursor as URL-safe text.
    public var token: String {
        let hex = pushID.utf8.map { String(format: "%02x", $0) }.joined()
        return startedMs.map { "t\($0).\(hex)" } ?? "i\(hex)"
    }

    /// Reads a cursor's text; `nil` for anything `token` did not make (never traps on a huge
    /// number or odd hex).
    ///
    /// - Parameter token: the text from a previous page.
    public init?(token: String) {
        guard token.utf8.count <= 2 + 20 + 2 * 128, let kind = token.first else { return nil }
        let body = token.dropFirst()
        var hex = Substring(body)
        var started: Int?
        switch kind {
        case "t":
            guard let dot = body.firstIndex(of: ".") else { return nil }
            let digits = body[..<dot]
            guard !digits.isEmpty, digits.utf8.count <= 18, digits.utf8.allSatisfy({ (48...57).contains($0) }), let ms = Int(digits) else {
                return nil
            }
            started = ms
            hex = body[body.index(after: dot)...]
        case "i":
            break
        default:
            return nil
        }
        let digits = Array(hex.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let hi = Self.nibble(digits[i]), let lo = Self.nibble(digits[i + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
            i += 2
        }
        guard let id = String(bytes: bytes, encoding: .utf8) else { return nil }
        self.init(startedMs: started, pushID: id)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
