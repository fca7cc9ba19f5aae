/// One build setting assignment: `NAME[sdk=iphoneos*] = value`, from a project's
/// `buildSettings` or an `.xcconfig` line.
public struct BuildSettingAssignment: Sendable, Hashable {
    /// The setting name (`PRODUCT_BUNDLE_IDENTIFIER`).
    public let name: String
    /// The conditions (`sdk` → `iphoneos*`, `config` → `Release`, `arch` → `arm64`).
    public let conditions: [String: String]
    /// The value as written (unexpanded).
    public let value: String
    /// Where it was written: `file:line` for an xcconfig, the configuration for a project.
    public let origin: String

    /// Makes an assignment.
    /// - Parameters:
    ///   - name: the setting name.
    ///   - conditions: the bracketed conditions.
    ///   - value: the unexpanded value.
    ///   - origin: where it was written.
    public init(name: String, conditions: [String: String] = [:], value: String, origin: String) {
        self.name = name
        self.conditions = conditions
        self.value = value
        self.origin = origin
    }

    /// Splits a written key `NAME[sdk=iphoneos*][arch=*]` (or `NAME[sdk=a,arch=b]`) into its
    /// name and conditions.
    /// - Parameter key: the key as written.
    /// - Returns: the name and the conditions.
    public static func splitKey(_ key: String) -> (name: String, conditions: [String: String]) {
        guard let open = key.firstIndex(of: "[") else { return (key.trimmingCharacters(in: .whitespaces), [:]) }
        let name = String(key[..<open]).trimmingCharacters(in: .whitespaces)
        var conditions: [String: String] = [:]
        var rest = key[open...]
        while let start = rest.firstIndex(of: "["), let end = rest[start...].firstIndex(of: "]") {
            for part in rest[rest.index(after: start)..<end].split(separator: ",") {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2 {
                    conditions[pair[0].trimmingCharacters(in: .whitespaces)] = pair[1].trimmingCharacters(in: .whitespaces)
                }
            }
            rest = rest[rest.index(after: end)...]
        }
        return (name, conditions)
    }

    /// Whether the conditions hold for a build context (`*` matches any run of characters).
    /// - Parameter context: condition name → value (`sdk` → `iphoneos18.0`).
    /// - Returns: true when every condition matches.
    public func applies(in context: [String: String]) -> Bool {
        conditions.allSatisfy { key, pattern in
            guard let value = context[key] else { return pattern == "*" }
            return Self.glob(pattern, matches: value)
        }
    }

    static func glob(_ pattern: String, matches value: String) -> Bool {
        let p = Array(pattern.utf8)
        let v = Array(value.utf8)
        var pi = 0
        var vi = 0
        var star = -1
        var mark = 0
        while vi < v.count {
            if pi < p.count && p[pi] == v[vi] {
                pi += 1
                vi += 1
            } else if pi < p.count && p[pi] == UInt8(ascii: "*") {
                star = pi
                mark = vi
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                vi = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.count
    }
}
