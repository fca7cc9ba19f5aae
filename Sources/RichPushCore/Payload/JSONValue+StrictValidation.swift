import Foundation

extension JSONValue {
    /// RFC 8259: the deepest nesting the strict check accepts (Foundation's own limit, 512 levels).
    public static let maximumNestingDepth = 512

    /// Checks that bytes are strict RFC 8259 JSON, as APNs expects.
    ///
    /// Foundation's `JSONSerialization` on Linux accepts a trailing comma and keeps the last of
    /// duplicate keys; APNs does not promise either. This scanner is iterative (no recursion) and
    /// stops at `maximumNestingDepth`, so a megabyte of `[` cannot exhaust the stack.
    /// Refused: trailing commas, duplicate keys in one object (after unescaping), comments,
    /// `NaN`/`Infinity`, single quotes, leading zeros or `+`, control characters in strings,
    /// bad escapes, text after the value, bytes that are not UTF-8.
    /// - Parameter data: the JSON bytes.
    /// - Throws: `RichPushError` with code `invalid_json`; the message names the position as
    ///   `line L, column C` (1-based, columns in characters) and what is wrong.
    public static func validateStrictly(_ data: Data) throws {
        let failure: (offset: Int, message: String)? = data.withUnsafeBytes { raw in
            var scanner = StrictJSONScanner(bytes: raw.bindMemory(to: UInt8.self))
            return scanner.scan()
        }
        guard let failure else { return }
        let (line, column) = data.withUnsafeBytes { raw in
            StrictJSONScanner.lineAndColumn(of: failure.offset, in: raw.bindMemory(to: UInt8.self))
        }
        throw RichPushError(code: .invalidJSON, message: "not valid JSON at line \(line), column \(column): \(failure.message)")
    }

    /// Parses JSON bytes after the strict RFC 8259 check (`validateStrictly`).
    ///
    /// - Parameter data: UTF-8 JSON text.
    /// - Returns: the parsed value.
    /// - Throws: `RichPushError` with code `invalid_json`, naming line and column.
    public static func parseStrictly(_ data: Data) throws -> JSONValue {
        try validateStrictly(data)
        return try parse(data)
    }
}

/// The iterative scanner behind `JSONValue.validateStrictly`.
private struct StrictJSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    /// One entry per open container: the keys seen so far (objects) or `nil` (arrays).
    var stack: [Set<String>?] = []

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    typealias Failure = (offset: Int, message: String)

    mutating func scan() -> Failure? {
        if String(bytes: bytes, encoding: .utf8) == nil, !bytes.isEmpty {
            return (firstInvalidUTF8(), "the bytes are not UTF-8 text")
        }
        var expectValue = true
        while true {
            skipWhitespace()
            if expectValue {
                guard i < bytes.count else {
                    return (i, stack.isEmpty ? "the input is empty; expected a JSON value" : "unexpected end of input; expected a value")
                }
                let c = bytes[i]
                switch c {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard stack.count < JSONValue.maximumNestingDepth else {
                        return (i, "nesting deeper than \(JSONValue.maximumNestingDepth) levels")
                    }
                    let isObject = c == UInt8(ascii: "{")
                    stack.append(isObject ? Set<String>() : nil)
                    i += 1
                    skipWhitespace()
                    if i < bytes.count, bytes[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        i += 1
                        stack.removeLast()
                        expectValue = false
                    } else if isObject {
                        if let failure = scanKeyAndColon() { return failure }
                    }
                case UInt8(ascii: "\""):
                    if case .failure(let f) = scanString(decode: false) { return f }
                    expectValue = false
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if let failure = scanNumber() { return failure }
                    expectValue = false
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    if let failure = scanLiteral() { return failure }
                    expectValue = false
                default:
                    return (i, describeUnexpected(expected: "a value"))
                }
                continue
            }
            // After a value.
            guard let top = stack.last else {
                if i < bytes.count { return (i, "extra text after the JSON value: \(describeUnexpected(expected: "the end of input"))") }
                return nil
            }
            let isObject = top != nil
            let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            guard i < bytes.count else {
                return (i, "unexpected end of input; missing '\(Character(UnicodeScalar(close)))'")
            }
            if bytes[i] == UInt8(ascii: ",") {
                let comma = i
                i += 1
                skipWhitespace()
                if i < bytes.count, bytes[i] == close {
                    return (comma, "trailing comma before '\(Character(UnicodeScalar(close)))'; remove the comma")
                }
                if isObject {
                    if let failure = scanKeyAndColon() { return failure }
                }
                expectValue = true
            } else if bytes[i] == close {
                i += 1
                stack.removeLast()
            } else {
                return (i, describeUnexpected(expected: "',' or '\(Character(UnicodeScalar(close)))'"))
            }
        }
    }

    /// Scans `"key"` `:` inside the object on top of the stack; a key seen before is an error.
    mutating func scanKeyAndColon() -> Failure? {
        skipWhitespace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
            if i >= bytes.count { return (i, "unexpected end of input; expected a key in double quotes") }
            return (i, describeUnexpected(expected: "a key in double quotes"))
        }
        let keyStart = i
        let key: String
        switch scanString(decode: true) {
        case .failure(let f): return f
        case .success(let k): key = k
        }
        let last = stack.count - 1
        if stack[last]?.insert(key).inserted == false {
            return (keyStart, "duplicate key \"\(key)\" in the same object; keep only one")
        }
        skipWhitespace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
            return (i, describeUnexpected(expected: "':' after the key \"\(key)\""))
        }
        i += 1
        return nil
    }

    enum StringResult { case success(String), failure(Failure) }

    /// Scans a string starting at the opening quote; with `decode`, returns its unescaped text.
    mutating func scanString(decode: Bool) -> StringResult {
        let start = i
        i += 1
        var utf8: [UInt8] = []
        var pendingHigh: UInt32?
        func append(_ scalar: UInt32) {
            if let s = Unicode.Scalar(scalar) { utf8.append(contentsOf: Array(String(Character(s)).utf8)) }
            else { utf8.append(contentsOf: [0xEF, 0xBF, 0xBD]) }
        }
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                if decode, pendingHigh != nil { append(0xFFFD) }
                return .success(decode ? String(decoding: utf8, as: UTF8.self) : "")
            }
            if c < 0x20 {
                return .failure((i, "a control character (0x\(String(c, radix: 16))) inside a string; escape it (\\n, \\t, \\u00XX)"))
            }
            if c == UInt8(ascii: "\\") {
                guard i + 1 < bytes.count else { break }
                let e = bytes[i + 1]
                var decoded: UInt32?
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded = UInt32(e)
                case UInt8(ascii: "b"): decoded = 0x08
                case UInt8(ascii: "f"): decoded = 0x0C
                case UInt8(ascii: "n"): decoded = 0x0A
                case UInt8(ascii: "r"): decoded = 0x0D
                case UInt8(ascii: "t"): decoded = 0x09
                case UInt8(ascii: "u"):
                    guard i + 5 < bytes.count,
                          let unit = UInt32(String(decoding: UnsafeBufferPointer(rebasing: bytes[(i + 2)..<(i + 6)]), as: UTF8.self), radix: 16),
                          bytes[(i + 2)..<(i + 6)].allSatisfy({ isHexDigit($0) })
                    else {
                        return .failure((i, "a \\u escape needs four hex digits"))
                    }
                    i += 6
                    if decode {
                        if (0xD800...0xDBFF).contains(unit) {
                            if pendingHigh != nil { append(0xFFFD) }
                            pendingHigh = unit
                        } else if (0xDC00...0xDFFF).contains(unit), let high = pendingHigh {
                            append(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00))
                            pendingHigh = nil
                        } else {
                            if pendingHigh != nil { append(0xFFFD); pendingHigh = nil }
                            append(unit)
                        }
                    }
                    continue
                default:
                    return .failure((i, "the escape '\\\(Character(UnicodeScalar(e)))' is not JSON (use \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX)"))
                }
                if decode, let decoded {
                    if pendingHigh != nil { append(0xFFFD); pendingHigh = nil }
                    append(decoded)
                }
                i += 2
                continue
            }
            if decode {
                if pendingHigh != nil { append(0xFFFD); pendingHigh = nil }
                utf8.append(c)
            }
            i += 1
        }
        return .failure((start, "a string is not closed; missing '\"'"))
    }

    mutating func scanNumber() -> Failure? {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else {
            return (start, "'-' must be followed by a digit (NaN and Infinity are not JSON)")
        }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < bytes.count, isDigit(bytes[i]) { return (start, "a number with a leading zero is not JSON") }
        } else {
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { return (i, "a digit must follow the decimal point") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { return (i, "a digit must follow the exponent") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        return nil
    }

    mutating func scanLiteral() -> Failure? {
        for literal in ["true", "false", "null"] {
            let word = Array(literal.utf8)
            if i + word.count <= bytes.count, bytes[i..<(i + word.count)].elementsEqual(word) {
                i += word.count
                return nil
            }
        }
        return (i, describeUnexpected(expected: "a value"))
    }

    mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
    func isHexDigit(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
    }

    /// "expected X, found Y", with a hint for the usual non-JSON (comments, NaN, single quotes).
    func describeUnexpected(expected: String) -> String {
        guard i < bytes.count else { return "expected \(expected), found the end of input" }
        let c = bytes[i]
        let rest = String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<min(bytes.count, i + 9)]), as: UTF8.self)
        if c == UInt8(ascii: "/") { return "a comment; JSON has no comments, remove it" }
        if c == UInt8(ascii: "'") { return "a single quote; JSON strings and keys use double quotes" }
        if rest.hasPrefix("NaN") || rest.hasPrefix("Infinity") || rest.hasPrefix("-Infinity") {
            return "NaN and Infinity are not JSON numbers"
        }
        if c == UInt8(ascii: "+") { return "a number cannot start with '+'" }
        if c == 0xEF, rest.utf8.starts(with: [0xEF, 0xBB, 0xBF]) { return "a byte order mark; save the file as UTF-8 without BOM" }
        let shown = c >= 0x21 && c < 0x7F ? "'\(Character(UnicodeScalar(c)))'" : "byte 0x\(String(c, radix: 16))"
        return "expected \(expected), found \(shown)"
    }

    func firstInvalidUTF8() -> Int {
        var j = 0
        while j < bytes.count {
            let b = bytes[j]
            let length = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0
            guard length > 0, j + length <= bytes.count,
                  String(bytes: UnsafeBufferPointer(rebasing: bytes[j..<(j + length)]), encoding: .utf8) != nil
            else { return j }
            j += length
        }
        return j
    }

    /// 1-based line and column (in characters) of a byte offset.
    static func lineAndColumn(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int) {
        var line = 1, column = 1
        for j in 0..<min(offset, bytes.count) {
            let b = bytes[j]
            if b == 0x0A { line += 1; column = 1 }
            else if b & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }
}
