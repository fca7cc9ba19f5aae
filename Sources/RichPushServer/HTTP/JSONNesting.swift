import Foundation

/// How deeply a JSON text nests, measured without parsing it, so that a body refused for its
/// depth is told so instead of "not a JSON object".
enum JSONNesting {
    /// Foundation's `JSONSerialization` refuses JSON nested more than this many arrays and
    /// objects deep (measured on Linux and Apple platforms: 512 parse, 513 do not).
    static let limit = 512

    /// The deepest nesting of `[` / `{` in `data`, ignoring brackets inside strings.
    ///
    /// - Parameter data: UTF-8 JSON text (need not be valid).
    /// - Returns: the maximum depth, 0 for a scalar.
    static func depth(of data: Data) -> Int {
        var depth = 0, deepest = 0
        var inString = false, escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// A message for a body that did not parse because it nests deeper than `limit`, else `nil`.
    ///
    /// - Parameter data: the body that failed to parse.
    /// - Returns: e.g. "the JSON body is nested 600 levels deep; at most 512 levels of arrays and objects".
    static func tooDeepMessage(_ data: Data) -> String? {
        let depth = depth(of: data)
        guard depth > limit else { return nil }
        return "the JSON body is nested \(depth) levels deep; at most \(limit) levels of arrays and objects"
    }
}
