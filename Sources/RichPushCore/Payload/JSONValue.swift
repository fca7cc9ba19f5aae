import Foundation

/// A JSON value that is `Sendable`, so a payload can cross tasks and actors.
///
/// Numbers keep their integer-ness: APNs cares whether `mutable-content` is the integer `1`,
/// the string `"1"` or the boolean `true`, so `int`, `double` and `bool` are distinct cases.
public enum JSONValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses JSON bytes into a value.
    ///
    /// Nesting deeper than Foundation's limit (512 levels) is rejected, never a crash.
    /// - Parameter data: UTF-8 JSON text.
    /// - Returns: the parsed value; fragments (a bare string or number) are allowed.
    /// - Throws: `RichPushError` with code `invalid_json` when the bytes are not JSON.
    public static func parse(_ data: Data) throws -> JSONValue {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw RichPushError(
                code: .invalidJSON,
                message: "not valid JSON (\(Self.describe(error))); check the file with `python3 -m json.tool FILE`",
                underlying: error
            )
        }
        return JSONValue(any: object) ?? .null
    }

    /// Converts a Foundation property-list value (`userInfo`, `JSONSerialization` output).
    ///
    /// - Parameter any: a value made of `NSDictionary`, `NSArray`, `NSString`, `NSNumber`, `NSNull`.
    /// - Returns: the value, or `nil` when it holds something JSON cannot (a `Date`, a `Data`…).
    public init?(any: Any) {
        switch any {
        case is NSNull:
            self = .null
        case let s as String:
            self = .string(s)
        case let n as NSNumber:
            self = JSONValue.fromNumber(n)
        case let a as [Any]:
            var out: [JSONValue] = []
            out.reserveCapacity(a.count)
            for element in a {
                guard let v = JSONValue(any: element) else { return nil }
                out.append(v)
            }
            self = .array(out)
        case let d as [AnyHashable: Any]:
            var out: [String: JSONValue] = [:]
            for (k, element) in d {
                guard let key = k.base as? String, let v = JSONValue(any: element) else { return nil }
                out[key] = v
            }
            self = .object(out)
        default:
            return nil
        }
    }

    private static func fromNumber(_ n: NSNumber) -> JSONValue {
        #if canImport(Darwin)
        if CFGetTypeID(n) == CFBooleanGetTypeID() { return .bool(n.boolValue) }
        #else
        // swift-corelibs-foundation hands out the two shared boolean instances.
        if n === NSNumber(value: true) || n === NSNumber(value: false) { return .bool(n.boolValue) }
        #endif
        let type = String(cString: n.objCType)
        if type == "d" || type == "f" { return .double(n.doubleValue) }
        if let i = Int(exactly: n.int64Value) { return .int(i) }
        return .double(n.doubleValue)
    }

    /// The value as a Foundation object, for `JSONSerialization` and `userInfo`.
    public var foundationObject: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let b): return b
        case .int(let i): return i
        case .double(let d): return d
        case .string(let s): return s
        case .array(let a): return a.map(\.foundationObject)
        case .object(let o): return o.mapValues(\.foundationObject)
        }
    }

    /// Serialises the value as JSON text.
    ///
    /// - Parameter sortedKeys: sort object keys (stable output for tests and diffs).
    /// - Returns: UTF-8 JSON bytes, without escaped slashes.
    public func jsonData(sortedKeys: Bool = true) -> Data {
        var options: JSONSerialization.WritingOptions = [.fragmentsAllowed, .withoutEscapingSlashes]
        if sortedKeys { options.insert(.sortedKeys) }
        return (try? JSONSerialization.data(withJSONObject: foundationObject, options: options)) ?? Data("null".utf8)
    }

    /// The string, when this is a `.string`.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The integer, when this is an `.int` (or a `.double` with no fraction).
    public var intValue: Int? {
        switch self {
        case .int(let i): return i
        case .double(let d): return Int(exactly: d)
        default: return nil
        }
    }

    /// The dictionary, when this is an `.object`.
    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements, when this is an `.array`.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// Looks a member up by key, when this is an `.object`.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    private static func describe(_ error: any Error) -> String {
        let ns = error as NSError
        return (ns.userInfo[NSDebugDescriptionErrorKey] as? String) ?? ns.localizedDescription
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}
