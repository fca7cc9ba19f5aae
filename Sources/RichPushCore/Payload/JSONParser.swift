import Foundation

/// The RFC 8259 parser behind `RichPushJSONValue.parse` and `parseStrictly`: one pass over the bytes,
/// iterative (an explicit stack, no recursion, at most `RichPushJSONValue.maximumNestingDepth` levels),
/// numbers kept as their text, strings as their exact scalars and unpaired surrogates.
struct JSONParser {
    /// What a key seen twice in one object does.
    enum Duplicates {
        /// An error naming the second occurrence (strict JSON for APNs).
        case refuse
        /// The last value wins (Foundation's behaviour).
        case keepLast
    }

    /// Where parsing stopped and why.
    struct Failure: Error {
        var offset: Int
        var message: String
        /// The key, when the failure is a key given twice in one object.
        var duplicateKey: String? = nil
    }

    /// Parses `data` into a value.
    /// - Parameters:
    ///   - data: UTF-8 JSON.
    ///   - duplicates: what a duplicate key does.
    ///   - skipByteOrderMark: skip a leading UTF-8 BOM instead of refusing it.
    ///   - namingDuplicates: throw a refused duplicate key as `JSONDuplicateKeyError` (naming the
    ///     key) rather than as `RichPushError`.
    /// - Returns: the value.
    /// - Throws: `RichPushError` `invalid_json` with line and column (or `JSONDuplicateKeyError`).
    static func parse(_ data: Data, duplicates: Duplicates, skipByteOrderMark: Bool, namingDuplicates: Bool = false) throws -> RichPushJSONValue {
        let result: Result<RichPushJSONValue, Failure> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), duplicates: duplicates)
            if skipByteOrderMark, parser.bytes.count >= 3, parser.bytes[0] == 0xEF, parser.bytes[1] == 0xBB, parser.bytes[2] == 0xBF {
                parser.i = 3
            }
            do {
                return .success(try parser.parseDocument())
            } catch let failure as Failure {
                return .failure(failure)
            } catch {
                return .failure(Failure(offset: parser.i, message: "\(error)"))
            }
        }
        switch result {
        case .success(let value):
            return value
        case .failure(let failure):
            let (line, column) = data.withUnsafeBytes { raw in
                lineAndColumn(of: failure.offset, in: raw.bindMemory(to: UInt8.self))
            }
            let message = "not valid JSON at line \(line), column \(column): \(failure.message)"
            if namingDuplicates, let key = failure.duplicateKey {
                throw JSONDuplicateKeyError(key: key, line: line, column: column, message: message)
            }
            throw RichPushError(code: .invalidJSON, message: message)
        }
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let duplicates: Duplicates
    var i = 0

    /// Open containers, innermost last: whether each is an object.
    private var kinds: [Bool] = []
    /// The elements of the open arrays, innermost last.
    private var arrays: [[RichPushJSONValue]] = []
    /// The members of the open objects and the key awaiting its value, innermost last.
    private var objects: [[String: RichPushJSONValue]] = []
    private var pendingKeys: [String] = []

    init(bytes: UnsafeBufferPointer<UInt8>, duplicates: Duplicates) {
        self.bytes = bytes
        self.duplicates = duplicates
    }

    // MARK: Structure

    mutating func parseDocument() throws -> RichPushJSONValue {
        skipWhitespace()
        while true {
            // A value starts here.
            guard i < bytes.count else {
                throw Failure(offset: i, message: kinds.isEmpty ? "the input is empty; expected a JSON value" : "unexpected end of input; expected a value")
            }
            var value: RichPushJSONValue
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard kinds.count < RichPushJSONValue.maximumNestingDepth else {
                    throw Failure(offset: i, message: "nesting deeper than \(RichPushJSONValue.maximumNestingDepth) levels")
                }
                let isObject = c == UInt8(ascii: "{")
                i += 1
                skipWhitespace()
                if i < bytes.count, bytes[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    i += 1
                    value = isObject ? .object([:]) : .array([])
                } else {
                    kinds.append(isObject)
                    if isObject {
                        objects.append([:])
                        pendingKeys.append(try scanKeyAndColon(in: [:]))
                    } else {
                        arrays.append([])
                    }
                    skipWhitespace()
                    continue
                }
            case UInt8(ascii: "\""):
                value = .string(try scanString())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try scanNumber())
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                value = try scanLiteral()
            default:
                throw Failure(offset: i, message: describeUnexpected(expected: "a value"))
            }
            // After a value: add it to its container, close containers that end here.
            while true {
                guard let isObject = kinds.last else {
                    skipWhitespace()
                    if i < bytes.count {
                        throw Failure(offset: i, message: "extra text after the JSON value: \(describeUnexpected(expected: "the end of input"))")
                    }
                    return value
                }
                if isObject {
                    objects[objects.count - 1][pendingKeys[pendingKeys.count - 1]] = value
                } else {
                    arrays[arrays.count - 1].append(value)
                }
                skipWhitespace()
                let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                guard i < bytes.count else {
                    throw Failure(offset: i, message: "unexpected end of input; missing '\(Character(UnicodeScalar(close)))'")
                }
                if bytes[i] == UInt8(ascii: ",") {
                    let comma = i
                    i += 1
                    skipWhitespace()
                    if i < bytes.count, bytes[i] == close {
                        throw Failure(offset: comma, message: "trailing comma before '\(Character(UnicodeScalar(close)))'; remove the comma")
                    }
                    if isObject {
                        pendingKeys[pendingKeys.count - 1] = try scanKeyAndColon(in: objects[objects.count - 1])
                    }
                    skipWhitespace()
                    break
                } else if bytes[i] == close {
                    i += 1
                    kinds.removeLast()
                    if isObject {
                        pendingKeys.removeLast()
                        value = .object(objects.removeLast())
                    } else {
                        value = .array(arrays.removeLast())
                    }
                } else {
                    throw Failure(offset: i, message: describeUnexpected(expected: "',' or '\(Character(UnicodeScalar(close)))'"))
                }
            }
        }
    }

    /// Scans `"key"` `:`; a key already in `members` is refused (or kept last, by `duplicates`).
    private mutating func scanKeyAndColon(in members: [String: RichPushJSONValue]) throws -> String {
        skipWhitespace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
            if i >= bytes.count { throw Failure(offset: i, message: "unexpected end of input; expected a key in double quotes") }
            throw Failure(offset: i, message: describeUnexpected(expected: "a key in double quotes"))
        }
        let keyStart = i
        let scanned = try scanString()
        if scanned.hasUnpairedSurrogates {
            throw Failure(
                offset: keyStart,
                message:
                    "the key \"\(scanned.value)\" holds an unpaired UTF-16 surrogate escape (such as \\ud800); string values may, keys may not: rename the key")
        }
        let key = scanned.value
        if let index = members.index(forKey: key) {
            let existing = members[index].key
            if !existing.utf8.elementsEqual(key.utf8) {
                throw Failure(
                    offset: keyStart,
                    message: "the keys \"\(existing)\" and \"\(key)\" differ only in Unicode normalization (canonically equivalent); keep one spelling")
            }
            if duplicates == .refuse {
                throw Failure(offset: keyStart, message: "duplicate key \"\(key)\" in the same object; keep only one", duplicateKey: key)
            }
        }
        skipWhitespace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
            throw Failure(offset: i, message: describeUnexpected(expected: "':' after the key \"\(key)\""))
        }
        i += 1
        return key
    }

    // MARK: Scalars

    /// Scans a string from its opening quote.
    private mutating func scanString() throws -> RichPushJSONString {
        let start = i
        i += 1
        let contentStart = i
        // Fast path: ASCII without escapes up to the closing quote.
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<i]), as: UTF8.self)
                i += 1
                return RichPushJSONString(text)
            }
            if c < 0x20 || c >= 0x80 || c == UInt8(ascii: "\\") { break }
            i += 1
        }
        // General path: escapes, UTF-8 checked sequence by sequence. Unpaired surrogates are held
        // as generalized UTF-8 (WTF-8) until the end.
        var utf8 = Array(bytes[contentStart..<i])
        var unpaired = false
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                if unpaired {
                    let spelling = String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<(i - 1)]), as: UTF8.self)
                    return RichPushJSONString(utf16CodeUnits: Self.utf16(fromWTF8: utf8), spelling: spelling)
                }
                return RichPushJSONString(String(decoding: utf8, as: UTF8.self))
            }
            if c < 0x20 {
                throw Failure(offset: i, message: "a control character (0x\(String(c, radix: 16))) inside a string; escape it (\\n, \\t, \\u00XX)")
            }
            if c >= 0x80 {
                guard let length = utf8SequenceLength(at: i) else {
                    throw Failure(offset: i, message: "the bytes are not UTF-8 text")
                }
                utf8.append(contentsOf: bytes[i..<(i + length)])
                i += length
                continue
            }
            guard c == UInt8(ascii: "\\") else {
                utf8.append(c)
                i += 1
                continue
            }
            guard i + 1 < bytes.count else { break }
            let e = bytes[i + 1]
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(e)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                guard let unit = hexUnit(at: i + 2) else {
                    throw Failure(offset: i, message: "a \\u escape needs four hex digits")
                }
                i += 6
                var scalar = UInt32(unit)
                if (0xD800...0xDBFF).contains(unit), i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u"),
                    let low = hexUnit(at: i + 2), (0xDC00...0xDFFF).contains(low)
                {
                    scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    i += 6
                } else if (0xD800...0xDFFF).contains(unit) {
                    unpaired = true
                }
                Self.appendGeneralizedUTF8(scalar, to: &utf8)
                continue
            default:
                throw Failure(
                    offset: i, message: "the escape '\\\(Character(UnicodeScalar(e)))' is not JSON (use \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX)")
            }
            i += 2
        }
        throw Failure(offset: start, message: "a string is not closed; missing '\"'")
    }

    /// The four hex digits at `at` as a UTF-16 code unit.
    private func hexUnit(at position: Int) -> UInt16? {
        guard position + 4 <= bytes.count else { return nil }
        var unit: UInt16 = 0
        for j in position..<(position + 4) {
            let b = bytes[j]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - 0x61 + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - 0x41 + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// The length of the well-formed UTF-8 sequence at `position` (Unicode Table 3-7), or `nil`.
    private func utf8SequenceLength(at position: Int) -> Int? {
        let b0 = bytes[position]
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            position + offset < bytes.count && range.contains(bytes[position + offset])
        }
        switch b0 {
        case 0xC2...0xDF: return continuation(1) ? 2 : nil
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : nil
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : nil
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : nil
        default: return nil
        }
    }

    /// Appends a code point as UTF-8, surrogates included (generalized UTF-8, "WTF-8").
    private static func appendGeneralizedUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (scalar >> 6)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (scalar >> 12)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (scalar >> 18)))
            out.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    /// Decodes generalized UTF-8 (well-formed, as built by the scanner) into UTF-16 code units.
    static func utf16(fromWTF8 bytes: [UInt8]) -> [UInt16] {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count)
        var j = 0
        while j < bytes.count {
            let b = bytes[j]
            var scalar: UInt32
            var length: Int
            switch b {
            case 0..<0x80: scalar = UInt32(b); length = 1
            case 0xC0..<0xE0: scalar = UInt32(b & 0x1F); length = 2
            case 0xE0..<0xF0: scalar = UInt32(b & 0x0F); length = 3
            default: scalar = UInt32(b & 0x07); length = 4
            }
            for k in 1..<length where j + k < bytes.count {
                scalar = scalar << 6 | UInt32(bytes[j + k] & 0x3F)
            }
            j += length
            if scalar >= 0x10000 {
                let v = scalar - 0x10000
                units.append(UInt16(0xD800 + (v >> 10)))
                units.append(UInt16(0xDC00 + (v & 0x3FF)))
            } else {
                units.append(UInt16(scalar))
            }
        }
        return units
    }

    private mutating func scanNumber() throws -> RichPushJSONNumber {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else {
            throw Failure(offset: start, message: "'-' must be followed by a digit (NaN and Infinity are not JSON)")
        }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < bytes.count, isDigit(bytes[i]) { throw Failure(offset: start, message: "a number with a leading zero is not JSON") }
        } else {
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { throw Failure(offset: i, message: "a digit must follow the decimal point") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw Failure(offset: i, message: "a digit must follow the exponent") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        return RichPushJSONNumber(uncheckedText: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
    }

    private mutating func scanLiteral() throws -> RichPushJSONValue {
        for (literal, value) in [("true", RichPushJSONValue.bool(true)), ("false", .bool(false)), ("null", .null)] {
            let word = Array(literal.utf8)
            if i + word.count <= bytes.count, bytes[i..<(i + word.count)].elementsEqual(word) {
                i += word.count
                return value
            }
        }
        throw Failure(offset: i, message: describeUnexpected(expected: "a value"))
    }

    private mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    /// "expected X, found Y", with a hint for the usual non-JSON (comments, NaN, single quotes).
    private func describeUnexpected(expected: String) -> String {
        guard i < bytes.count else { return "expected \(expected), found the end of input" }
        let c = bytes[i]
        let rest = String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<min(bytes.count, i + 9)]), as: UTF8.self)
        if c == UInt8(ascii: "/") { return "a comment; JSON has no comments, remove it" }
        if c == UInt8(ascii: "'") { return "a single quote; JSON strings and keys use double quotes" }
        if rest.hasPrefix("NaN") || rest.hasPrefix("Infinity") || rest.hasPrefix("-Infinity") {
            return "NaN and Infinity are not JSON numbers"
        }
        if c == UInt8(ascii: "+") { return "a number cannot start with '+'" }
        if c == 0xEF, i + 2 < bytes.count, bytes[i + 1] == 0xBB, bytes[i + 2] == 0xBF {
            return "a byte order mark; save the file as UTF-8 without BOM"
        }
        if c >= 0x80, utf8SequenceLength(at: i) == nil { return "the bytes are not UTF-8 text" }
        let shown = c >= 0x21 && c < 0x7F ? "'\(Character(UnicodeScalar(c)))'" : "byte 0x\(String(c, radix: 16))"
        return "expected \(expected), found \(shown)"
    }

    /// 1-based line and column (in characters) of a byte offset.
    static func lineAndColumn(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int) {
        var line = 1, column = 1
        for j in 0..<min(offset, bytes.count) {
            let b = bytes[j]
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }
}
