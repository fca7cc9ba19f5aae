import Foundation

extension RichPushJSONValue {
    /// RFC 8259: the deepest nesting the parser accepts (Foundation's own limit, 512 levels).
    public static let maximumNestingDepth = 512

    /// Checks that bytes are strict RFC 8259 JSON, as APNs expects.
    ///
    /// The parser is iterative (no recursion) and stops at `maximumNestingDepth`, so a megabyte
    /// of `[` cannot exhaust the stack.
    /// Refused: trailing commas, duplicate keys in one object (after unescaping), comments,
    /// `NaN`/`Infinity`, single quotes, leading zeros or `+`, control characters in strings,
    /// bad escapes, text after the value, bytes that are not UTF-8, a byte order mark.
    /// - Parameter data: the JSON bytes.
    /// - Throws: `RichPushError` with code `invalid_json`; the message names the position as
    ///   `line L, column C` (1-based, columns in characters) and what is wrong.
    public static func validateStrictly(_ data: Data) throws {
        _ = try parseStrictly(data)
    }

    /// Parses JSON bytes, refusing everything `validateStrictly` refuses (duplicate keys
    /// included), and keeps every number and string exactly.
    ///
    /// - Parameter data: UTF-8 JSON text.
    /// - Returns: the parsed value.
    /// - Throws: `RichPushError` with code `invalid_json`, naming line and column.
    public static func parseStrictly(_ data: Data) throws -> RichPushJSONValue {
        try JSONParser.parse(data, duplicates: .refuse, skipByteOrderMark: false)
    }
}

extension RichPushJSONValue {
    /// Parses JSON bytes as `parse(_:)` does (a leading byte order mark is skipped), but refuses a
    /// key given twice in one object instead of keeping its last value.
    ///
    /// For bodies that also come as forms (`push_id=x&push_id=y` is refused there): the same
    /// duplicate in JSON must not quietly count under the last value.
    /// - Parameter data: UTF-8 JSON text.
    /// - Returns: the parsed value.
    /// - Throws: `JSONDuplicateKeyError` naming the key; `RichPushError` `invalid_json` for
    ///   anything else that is not JSON.
    public static func parseRefusingDuplicateKeys(_ data: Data) throws -> RichPushJSONValue {
        try JSONParser.parse(data, duplicates: .refuse, skipByteOrderMark: true, namingDuplicates: true)
    }
}
