import Foundation

/// A change to the app icon's badge, read from the payload's `badge_op` key.
///
/// Accepted spellings: `"inc"` (+1), `"dec"` (−1), `"+N"`, `"-N"`, `"set:N"` with N a decimal
/// integer 0…`maximumValue`. An integer JSON value N is read as `set:N`. Anything else is not an
/// operation (`init?` returns `nil`), and the server's `aps.badge` is kept.
@_spi(RichPushInternal)
public struct BadgeOperation: Sendable, Hashable, CustomStringConvertible {
    /// The payload key that carries the operation.
    public static let payloadKey = "badge_op"
    /// The largest badge and step we accept (our bound, far above what an icon can show).
    public static let maximumValue = 99_999

    /// Add `delta` (negative to subtract), or set the value.
    public enum Kind: Sendable, Hashable {
        /// Add the amount (negative to subtract); the result is clamped to 0…`maximumValue`.
        case add(Int)
        /// Set the badge to the value.
        case set(Int)
    }

    /// What to do.
    public let kind: Kind

    /// Makes an operation.
    /// - Parameter kind: add or set.
    public init(_ kind: Kind) { self.kind = kind }

    /// Parses the `badge_op` value.
    ///
    /// - Parameter json: a string such as `"inc"`, `"+2"`, `"-1"`, `"set:5"`, or an integer.
    /// - Returns: the operation, or `nil` when the value is not one.
    public init?(json: RichPushJSONValue) {
        if let n = json.integerLiteralValue {
            guard (0...Self.maximumValue).contains(n) else { return nil }
            self.init(.set(n))
            return
        }
        guard let text = json.stringValue?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        switch text {
        case "inc", "increment": self.init(.add(1))
        case "dec", "decrement": self.init(.add(-1))
        default:
            if text.hasPrefix("set:"), let n = Self.number(text.dropFirst(4)) {
                self.init(.set(n))
            } else if text.hasPrefix("+"), let n = Self.number(text.dropFirst()) {
                self.init(.add(n))
            } else if text.hasPrefix("-"), let n = Self.number(text.dropFirst()) {
                self.init(.add(-n))
            } else {
                return nil
            }
        }
    }

    private static func number(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let n = Int(digits), n <= maximumValue
        else { return nil }
        return n
    }

    /// Applies the operation to a badge value; the result is clamped to 0…`maximumValue`.
    ///
    /// - Parameter value: the current badge.
    /// - Returns: the new badge.
    public func applied(to value: Int) -> Int {
        switch kind {
        case .add(let delta): return min(max(value + delta, 0), Self.maximumValue)
        case .set(let n): return min(max(n, 0), Self.maximumValue)
        }
    }

    public var description: String {
        switch kind {
        case .add(let delta): return delta >= 0 ? "+\(delta)" : "\(delta)"
        case .set(let n): return "set:\(n)"
        }
    }
}
