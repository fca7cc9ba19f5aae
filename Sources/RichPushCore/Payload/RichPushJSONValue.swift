import Foundation

/// A JSON value that is `Sendable` and lossless: what is parsed is written back unchanged.
///
/// - Numbers are kept as written (`RichPushJSONNumber`): `18446744073709551615`, `1e400` and `0.1000`
///   round-trip exactly; APNs cares whether `mutable-content` is the integer `1`, the string `"1"`
///   or the boolean `true`, and `1.0` is not `1`.
/// - Strings are kept as their exact scalars (`RichPushJSONString`): a raw U+FEFF stays, nothing is
///   normalized, and an unpaired surrogate escape (`"\ud800"`) is written back as written.
/// - Objects are dictionaries keyed by `String`; `jsonData()` writes their keys sorted (stable
///   output). Key order as sent is not kept (RFC 8259 §4: objects are unordered).
///
/// Build values with `.string("…")`, `.int(1)`, `.double(0.5)`, `.object([…])`, `.array([…])`;
/// read them with `stringValue`, `intValue`, `numberValue`, `objectValue`, `arrayValue` or the
/// subscript.
public enum RichPushJSONValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its JSON text.
    case number(RichPushJSONNumber)
    /// A string, kept exactly (see `RichPushJSONString`).
    case string(RichPushJSONString)
    /// An array, in order.
    case array([RichPushJSONValue])
    /// An object (its keys unordered, RFC 8259 §4).
    case object([String: RichPushJSONValue])

    /// A string value.
    /// - Parameter value: the text.
    /// - Returns: `.string(RichPushJSONString(value))`.
    public static func string(_ value: String) -> RichPushJSONValue { .string(RichPushJSONString(value)) }

    /// An integer number.
    /// - Parameter value: the integer.
    /// - Returns: `.number` written in decimal.
    public static func int(_ value: Int) -> RichPushJSONValue { .number(RichPushJSONNumber(value)) }

    /// A floating-point number in its shortest round-trip text; NaN and ±infinity, which JSON
    /// cannot hold, become `.null`.
    /// - Parameter value: the double.
    /// - Returns: `.number`, or `.null` when `value` is not finite.
    public static func double(_ value: Double) -> RichPushJSONValue {
        RichPushJSONNumber(value).map(RichPushJSONValue.number) ?? .null
    }

    /// Parses JSON bytes into a value (RFC 8259), keeping every number and string exactly.
    ///
    /// A duplicate key keeps its last value (RFC 8259 §4 leaves this open; use `parseStrictly`
    /// to refuse duplicates, as APNs payloads should). A leading UTF-8 byte order mark is
    /// skipped. Nesting deeper than `maximumNestingDepth` (512) is refused, never a crash.
    /// - Parameter data: UTF-8 JSON text.
    /// - Returns: the parsed value; fragments (a bare string or number) are allowed.
    /// - Throws: `RichPushError` with code `invalid_json` naming line, column and what is wrong.
    public static func parse(_ data: Data) throws -> RichPushJSONValue {
        try JSONParser.parse(data, duplicates: .keepLast, skipByteOrderMark: true)
    }

    /// Converts a Foundation property-list value (`userInfo`, `JSONSerialization` output).
    ///
    /// Numbers keep what the `NSNumber` holds: integers (signed and unsigned 64-bit) exactly, a
    /// double in its shortest round-trip text, an `NSDecimalNumber` as its decimal text.
    /// - Parameter any: a value made of `NSDictionary`, `NSArray`, `NSString`, `NSNumber`, `NSNull`.
    /// - Returns: the value, or `nil` when it holds something JSON cannot (a `Date`, a `Data`,
    ///   a non-finite double…).
    public init?(any: Any) {
        switch any {
        case is NSNull:
            self = .null
        case let s as String:
            self = .string(s)
        case let n as NSNumber:
            guard let value = RichPushJSONValue.fromNumber(n) else { return nil }
            self = value
        case let a as [Any]:
            var out: [RichPushJSONValue] = []
            out.reserveCapacity(a.count)
            for element in a {
                guard let v = RichPushJSONValue(any: element) else { return nil }
                out.append(v)
            }
            self = .array(out)
        case let d as [AnyHashable: Any]:
            var out: [String: RichPushJSONValue] = [:]
            for (k, element) in d {
                guard let key = k.base as? String, let v = RichPushJSONValue(any: element) else { return nil }
                out[key] = v
            }
            self = .object(out)
        default:
            return nil
        }
    }

    private static func fromNumber(_ n: NSNumber) -> RichPushJSONValue? {
        #if canImport(Darwin)
        if CFGetTypeID(n) == CFBooleanGetTypeID() { return .bool(n.boolValue) }
        if let decimal = n as? NSDecimalNumber {
            if let number = RichPushJSONNumber(decimal.stringValue) { return .number(number) }
            return .double(decimal.doubleValue)
        }
        #else
        // swift-corelibs-foundation hands out the two shared boolean instances.
        if n === NSNumber(value: true) || n === NSNumber(value: false) { return .bool(n.boolValue) }
        #endif
        switch String(cString: n.objCType) {
        case "d", "f":
            return RichPushJSONNumber(n.doubleValue).map(RichPushJSONValue.number)
        case "Q", "L", "I", "S", "C":
            return .number(RichPushJSONNumber(n.uint64Value))
        default:
            return .number(RichPushJSONNumber(n.int64Value))
        }
    }

    /// The value as a Foundation object, for `JSONSerialization` and `userInfo`.
    ///
    /// Lossy where Foundation is: a number becomes an `Int`, `UInt64` or `Double` (`0.1000` is
    /// then `0.1`, `1e400` infinity); a string's unpaired surrogates become U+FFFD.
    public var foundationObject: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let b): return b
        case .number(let n):
            if n.isIntegerLiteral, let i = n.intValue { return i }
            if n.isIntegerLiteral, let u = n.uint64Value { return u }
            return n.doubleValue
        case .string(let s): return s.value
        case .array(let a): return a.map(\.foundationObject)
        case .object(let o): return o.mapValues(\.foundationObject)
        }
    }

    /// The string, when this is a `.string` (unpaired surrogates shown as U+FFFD).
    public var stringValue: String? {
        if case .string(let s) = self { return s.value }
        return nil
    }

    /// The exact string, when this is a `.string`.
    public var jsonStringValue: RichPushJSONString? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number, when this is a `.number`.
    public var numberValue: RichPushJSONNumber? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The integer, when this is a `.number` holding a whole number in `Int`'s range
    /// (`12`, and also `12.0` or `1.2e1`; see `RichPushJSONNumber.intValue`).
    public var intValue: Int? {
        if case .number(let n) = self { return n.intValue }
        return nil
    }

    /// The integer, when this is a `.number` written as an integer literal (`12`, not `12.0`)
    /// in `Int`'s range.
    public var integerLiteralValue: Int? {
        if case .number(let n) = self, n.isIntegerLiteral { return n.intValue }
        return nil
    }

    /// The nearest double, when this is a `.number` (`1e400` gives infinity).
    public var doubleValue: Double? {
        if case .number(let n) = self { return n.doubleValue }
        return nil
    }

    /// The boolean, when this is a `.bool`.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The dictionary, when this is an `.object`.
    public var objectValue: [String: RichPushJSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements, when this is an `.array`.
    public var arrayValue: [RichPushJSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// Looks a member up by key, when this is an `.object`.
    public subscript(key: String) -> RichPushJSONValue? {
        objectValue?[key]
    }
}

extension RichPushJSONValue: Codable {
    /// Decodes through a `Decoder`; numbers pass through the decoder's own types (integers
    /// exactly, others as `Double`). Use `parse(_:)` to keep every number as written.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .number(RichPushJSONNumber(i))
        } else if let u = try? c.decode(UInt64.self) {
            self = .number(RichPushJSONNumber(u))
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([RichPushJSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: RichPushJSONValue].self))
        }
    }

    /// Encodes through an `Encoder`; a number is written as `Int64`, `UInt64` or `Double`
    /// (an `Encoder` cannot take raw text). Use `jsonData()` to write every number as it was.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n):
            if n.isIntegerLiteral, let i = n.int64Value {
                try c.encode(i)
            } else if n.isIntegerLiteral, let u = n.uint64Value {
                try c.encode(u)
            } else {
                try c.encode(n.doubleValue)
            }
        case .string(let s): try c.encode(s.value)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}
