/// A JSON number kept exactly as written: `18446744073709551615`, `1e400`, `0.1000` and `-0` are
/// read, compared and written back as those characters, never through a lossy binary type.
///
/// RFC 8259 §6 leaves a number's range and precision to implementations; APNs, FCM and the app
/// may each read it differently, so a tool that forwards payloads must not pick one: RichPush
/// keeps the text and converts only when a caller asks (`intValue`, `doubleValue`, …).
///
/// Two numbers are equal when their text is equal (`1` and `1.0` differ, as APNs' `mutable-content`
/// rule needs: only the integer `1` counts).
public struct RichPushJSONNumber: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The number as written, e.g. `"0.1000"`; always valid RFC 8259 number grammar.
    public let text: String

    /// Makes a number from its JSON text.
    ///
    /// - Parameter text: RFC 8259 number text: optional `-`, digits without a leading zero, an
    ///   optional fraction and exponent (`-0.5e+10`); no `+`, `NaN`, `Infinity`, blanks or hex.
    /// - Returns: `nil` when `text` is not a JSON number.
    public init?(_ text: String) {
        guard Self.isValid(text.utf8) else { return nil }
        self.text = text
    }

    /// Wraps text the parser has already checked.
    init(uncheckedText text: String) {
        self.text = text
    }

    /// The integer, written in decimal.
    public init(_ value: Int) { text = String(value) }
    /// The integer, written in decimal.
    public init(_ value: Int64) { text = String(value) }
    /// The integer, written in decimal (up to 18446744073709551615).
    public init(_ value: UInt64) { text = String(value) }

    /// The double in the shortest text that reads back as the same double (`0.1`, `1e-07`, `5.0`).
    ///
    /// - Parameter value: a finite double.
    /// - Returns: `nil` for NaN and ±infinity, which JSON cannot hold.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        text = value.description
    }

    public init(integerLiteral value: Int) { self.init(value) }

    public var description: String { text }

    /// Whether the text is an integer literal (no fraction, no exponent): `12`, `-0`,
    /// `18446744073709551615`; `12.0` and `1e2` are not.
    public var isIntegerLiteral: Bool {
        !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The value as an `Int` when it is a whole number in `Int`'s range, computed exactly from the
    /// text (`12`, `12.0`, `1.2e1`, `120e-1` → 12); `nil` for `0.5`, `1e400` or `18446744073709551615`.
    public var intValue: Int? {
        guard let (negative, magnitude) = exactInteger(limit: UInt64(Int.max) + 1) else { return nil }
        if negative {
            return magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)
        }
        return magnitude <= UInt64(Int.max) ? Int(magnitude) : nil
    }

    /// The value as an `Int64` when it is a whole number in its range (see `intValue`).
    public var int64Value: Int64? { intValue.map(Int64.init) }

    /// The value as a `UInt64` when it is a whole number from 0 to 18446744073709551615.
    public var uint64Value: UInt64? {
        guard let (negative, magnitude) = exactInteger(limit: .max) else { return nil }
        if negative { return magnitude == 0 ? 0 : nil }
        return magnitude
    }

    /// The nearest `Double` (correctly rounded); `1e400` gives `+infinity`, `1e-400` gives 0.
    public var doubleValue: Double {
        Double(text) ?? 0
    }

    // MARK: Grammar and exact integers

    /// RFC 8259: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isValid(_ utf8: String.UTF8View) -> Bool {
        var it = utf8.makeIterator()
        var c = it.next()
        func isDigit(_ b: UInt8?) -> Bool { b.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
        if c == UInt8(ascii: "-") { c = it.next() }
        guard isDigit(c) else { return false }
        if c == UInt8(ascii: "0") {
            c = it.next()
        } else {
            repeat { c = it.next() } while isDigit(c)
        }
        if c == UInt8(ascii: ".") {
            c = it.next()
            guard isDigit(c) else { return false }
            repeat { c = it.next() } while isDigit(c)
        }
        if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            c = it.next()
            if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { c = it.next() }
            guard isDigit(c) else { return false }
            repeat { c = it.next() } while isDigit(c)
        }
        return c == nil
    }

    /// The sign and magnitude when the value is a whole number whose magnitude is at most
    /// `limit`, worked out on the digits (no floating point): mantissa digits × 10^exponent.
    private func exactInteger(limit: UInt64) -> (negative: Bool, magnitude: UInt64)? {
        let bytes = Array(text.utf8)
        var i = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { i += 1 }
        var digits: [UInt8] = []
        var fractionDigits = 0
        var inFraction = false
        while i < bytes.count, bytes[i] != UInt8(ascii: "e"), bytes[i] != UInt8(ascii: "E") {
            if bytes[i] == UInt8(ascii: ".") {
                inFraction = true
            } else {
                digits.append(bytes[i] - 0x30)
                if inFraction { fractionDigits += 1 }
            }
            i += 1
        }
        var exponent = 0
        if i < bytes.count {
            i += 1
            var exponentNegative = false
            if bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var e = 0
            while i < bytes.count {
                // Beyond 10^6 either every digit is shifted out or the value overflows anyway.
                e = min(e * 10 + Int(bytes[i] - 0x30), 1_000_000)
                i += 1
            }
            exponent = exponentNegative ? -e : e
        }
        // Leading zeros carry no value.
        while digits.count > 1, digits.first == 0 { digits.removeFirst() }
        if digits.allSatisfy({ $0 == 0 }) { return (negative, 0) }
        var shift = exponent - fractionDigits
        // Trailing zeros absorb a negative shift; anything left over is a fraction.
        while shift < 0, digits.last == 0 {
            digits.removeLast()
            shift += 1
        }
        guard shift >= 0, digits.count + shift <= 20 else { return nil }
        var magnitude: UInt64 = 0
        for d in digits + [UInt8](repeating: 0, count: shift) {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(d))
            guard !o1, !o2 else { return nil }
            magnitude = sum
        }
        return magnitude <= limit ? (negative, magnitude) : nil
    }
}
