import Foundation

/// A property-list value, from any of the three formats Xcode projects hold: the old-style ASCII
/// (OpenStep) `project.pbxproj`, XML and binary Info.plist / `.entitlements` files.
///
/// OpenStep plists know only strings, data, arrays and dictionaries; XML and binary plists add
/// booleans, integers, reals and dates.
public enum PlistValue: Sendable, Hashable {
    /// A string (every scalar of an OpenStep plist is one: `objectVersion = 56` is the string "56").
    case string(String)
    /// Bytes (`<0fbd7a>`, `<data>`).
    case data(Data)
    /// An array, in order.
    case array([PlistValue])
    /// A dictionary; a duplicate key keeps its last value.
    case dictionary([String: PlistValue])
    /// `<true/>` / `<false/>` (XML and binary only).
    case bool(Bool)
    /// `<integer>` (XML and binary only).
    case integer(Int)
    /// `<real>` (XML and binary only).
    case real(Double)
    /// `<date>` (XML and binary only).
    case date(Date)

    /// The string, or `nil` for another type.
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The array, or `nil` for another type.
    public var array: [PlistValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The dictionary, or `nil` for another type.
    public var dictionary: [String: PlistValue]? {
        if case .dictionary(let d) = self { return d }
        return nil
    }

    /// A truth value as Apple's tools read one: `<true/>`, or the strings `YES`/`true`/`1`
    /// (build settings and hand-written plists use both); `nil` when it is neither true nor false.
    public var truthValue: Bool? {
        switch self {
        case .bool(let b): return b
        case .integer(let i): return i != 0
        case .string(let s):
            switch s.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: return nil
            }
        default: return nil
        }
    }

    /// The member `key` of a dictionary; `nil` when absent or when this is not a dictionary.
    public subscript(key: String) -> PlistValue? {
        dictionary?[key]
    }

    /// The strings of an array value (non-strings skipped), or one string as a one-element list.
    public var strings: [String] {
        switch self {
        case .string(let s): return [s]
        case .array(let a): return a.compactMap(\.string)
        default: return []
        }
    }

    /// Converts what `PropertyListSerialization` returns into a value.
    ///
    /// - Parameter any: a Foundation property-list object.
    /// - Returns: the value, or `nil` for an object that is not a property-list type.
    public init?(foundation any: Any) {
        switch any {
        case let s as String: self = .string(s)
        case let d as Data: self = .data(d)
        case let d as Date: self = .date(d)
        case let b as Bool where type(of: any) == Bool.self: self = .bool(b)
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" {
                self = .bool(n.boolValue)
            } else if let i = any as? Int, Double(i) == n.doubleValue {
                self = .integer(i)
            } else {
                self = .real(n.doubleValue)
            }
        case let a as [Any]:
            var out: [PlistValue] = []
            out.reserveCapacity(a.count)
            for element in a {
                guard let v = PlistValue(foundation: element) else { return nil }
                out.append(v)
            }
            self = .array(out)
        case let d as [String: Any]:
            var out: [String: PlistValue] = [:]
            for (k, element) in d {
                guard let v = PlistValue(foundation: element) else { return nil }
                out[k] = v
            }
            self = .dictionary(out)
        default:
            return nil
        }
    }
}
