import Foundation

/// Parses old-style ASCII (OpenStep) property lists, the format of Xcode's `project.pbxproj`.
///
/// The grammar is Apple's (CoreFoundation's `CFOldStylePList.c`): dictionaries `{ key = value; }`,
/// arrays `( a, b, )` (a trailing comma allowed), strings unquoted (`A-Z a-z 0-9 _ $ / : . -`) or
/// quoted with `"` or `'`, data `<0fbd 7a>`, comments `/* … */` and `// …` wherever white space
/// may be. In quoted strings: `\a \b \f \n \r \t \v \" \' \\`, `\ooo` (1 to 3 octal digits, a
/// NeXTSTEP-encoded byte), `\Uxxxx` (1 to 4 hex digits, a UTF-16 unit; surrogate pairs joined);
/// any other `\c` is `c`. A duplicate key keeps its last value.
///
/// Works on the bytes (UTF-8, as Xcode writes: `// !$*UTF8*$!`); never crashes or loops on bad
/// input: every error names the line, and nesting deeper than `maximumDepth` is an error.
public struct OpenStepParser: Sendable {
    /// Containers nested deeper than this are refused (an Xcode project nests about 6 deep).
    public static let maximumDepth = 256

    /// The file name errors are reported against.
    public let fileName: String

    /// Makes a parser.
    /// - Parameter fileName: the name errors name (e.g. the path of the `project.pbxproj`).
    public init(fileName: String) {
        self.fileName = fileName
    }

    /// Parses a whole document: one value, then only white space and comments.
    ///
    /// - Parameter data: the file's bytes.
    /// - Returns: the root value (a dictionary for a `project.pbxproj`).
    /// - Throws: `PropertyListError` naming the file and line of the first problem.
    public func parse(_ data: Data) throws -> PlistValue {
        try data.withUnsafeBytes { raw in
            var cursor = Cursor(bytes: raw.bindMemory(to: UInt8.self), fileName: fileName)
            // A UTF-8 byte-order mark is allowed before the document.
            if cursor.bytes.count >= 3, cursor.bytes[0] == 0xEF, cursor.bytes[1] == 0xBB, cursor.bytes[2] == 0xBF {
                cursor.index = 3
            }
            try cursor.skipSpace()
            guard cursor.index < cursor.bytes.count else { throw cursor.error("the file is empty: it holds no property list") }
            let value = try cursor.parseValue(depth: 0)
            try cursor.skipSpace()
            if cursor.index < cursor.bytes.count {
                throw cursor.error("unexpected \(cursor.describeCurrent()) after the end of the property list")
            }
            return value
        }
    }

    /// Parses text (for tests and strings already in memory).
    /// - Parameter text: the document.
    /// - Returns: the root value.
    /// - Throws: `PropertyListError`.
    public func parse(_ text: String) throws -> PlistValue {
        try parse(Data(text.utf8))
    }
}

/// The parser's position in the bytes.
private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let fileName: String
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, fileName: String) {
        self.bytes = bytes
        self.fileName = fileName
    }

    /// The 1-based line of `offset`.
    func line(at offset: Int) -> Int {
        var line = 1
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            if bytes[i] == 0x0A { line += 1 }
            i += 1
        }
        return line
    }

    func error(_ message: String, at offset: Int? = nil) -> PropertyListError {
        PropertyListError(file: fileName, line: line(at: offset ?? index), message: message)
    }

    func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        if b >= 0x21 && b < 0x7F { return "'\(Character(UnicodeScalar(b)))'" }
        return String(format: "byte 0x%02X", b)
    }

    /// Skips white space, `/* … */` and `// …` comments.
    mutating func skipSpace() throws {
        while index < bytes.count {
            let b = bytes[index]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0B || b == 0x0C {
                index += 1
            } else if b == 0x2F, index + 1 < bytes.count, bytes[index + 1] == 0x2A {
                let start = index
                index += 2
                while true {
                    guard index + 1 < bytes.count else { throw error("a /* comment is never closed with */", at: start) }
                    if bytes[index] == 0x2A && bytes[index + 1] == 0x2F { break }
                    index += 1
                }
                index += 2
            } else if b == 0x2F, index + 1 < bytes.count, bytes[index + 1] == 0x2F {
                while index < bytes.count && bytes[index] != 0x0A && bytes[index] != 0x0D { index += 1 }
            } else {
                return
            }
        }
    }

    mutating func parseValue(depth: Int) throws -> PlistValue {
        guard index < bytes.count else { throw error("the property list ends where a value should be") }
        switch bytes[index] {
        case 0x7B:  // {
            guard depth < OpenStepParser.maximumDepth else { throw error("containers nested deeper than \(OpenStepParser.maximumDepth) levels") }
            return try parseDictionary(depth: depth + 1)
        case 0x28:  // (
            guard depth < OpenStepParser.maximumDepth else { throw error("containers nested deeper than \(OpenStepParser.maximumDepth) levels") }
            return try parseArray(depth: depth + 1)
        case 0x3C:  // <
            return .data(try parseData())
        case 0x22, 0x27:  // " '
            return .string(try parseQuoted())
        default:
            guard let s = parseUnquoted() else {
                throw error("expected a value (a string, \"quoted string\", {dictionary}, (array) or <data>) but found \(describeCurrent())")
            }
            return .string(s)
        }
    }

    mutating func parseDictionary(depth: Int) throws -> PlistValue {
        let open = index
        index += 1
        var dictionary: [String: PlistValue] = [:]
        while true {
            try skipSpace()
            guard index < bytes.count else { throw error("a dictionary opened with '{' is never closed with '}'", at: open) }
            if bytes[index] == 0x7D {
                index += 1
                return .dictionary(dictionary)
            }
            let keyStart = index
            let key: String
            if bytes[index] == 0x22 || bytes[index] == 0x27 {
                key = try parseQuoted()
            } else if let s = parseUnquoted() {
                key = s
            } else {
                throw error("expected a dictionary key or '}' but found \(describeCurrent())")
            }
            try skipSpace()
            guard index < bytes.count, bytes[index] == 0x3D else {
                throw error("expected '=' after the key \"\(key)\" but found \(describeCurrent())", at: index < bytes.count ? index : keyStart)
            }
            index += 1
            try skipSpace()
            let value = try parseValue(depth: depth)
            let valueEnd = index
            try skipSpace()
            guard index < bytes.count, bytes[index] == 0x3B else {
                throw error("expected ';' after the value of \"\(key)\" but found \(describeCurrent())", at: valueEnd)
            }
            index += 1
            dictionary[key] = value
        }
    }

    mutating func parseArray(depth: Int) throws -> PlistValue {
        let open = index
        index += 1
        var array: [PlistValue] = []
        while true {
            try skipSpace()
            guard index < bytes.count else { throw error("an array opened with '(' is never closed with ')'", at: open) }
            if bytes[index] == 0x29 {
                index += 1
                return .array(array)
            }
            array.append(try parseValue(depth: depth))
            let valueEnd = index
            try skipSpace()
            guard index < bytes.count else { throw error("an array opened with '(' is never closed with ')'", at: open) }
            if bytes[index] == 0x2C {
                index += 1
            } else if bytes[index] != 0x29 {
                throw error("expected ',' or ')' after an array element but found \(describeCurrent())", at: valueEnd)
            }
        }
    }

    static func isUnquoted(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39)
            || b == 0x5F || b == 0x24 || b == 0x2F || b == 0x3A || b == 0x2E || b == 0x2D
    }

    mutating func parseUnquoted() -> String? {
        let start = index
        while index < bytes.count && Self.isUnquoted(bytes[index]) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    mutating func parseData() throws -> Data {
        let open = index
        index += 1
        var out = Data()
        var high: UInt8?
        while true {
            guard index < bytes.count else { throw error("data opened with '<' is never closed with '>'", at: open) }
            let b = bytes[index]
            index += 1
            if b == 0x3E {
                guard high == nil else { throw error("data has an odd number of hex digits", at: index - 1) }
                return out
            }
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { continue }
            guard let nibble = Self.hexValue(b) else {
                index -= 1
                throw error("data may hold only hex digits and spaces, found \(describeCurrent())")
            }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    mutating func parseQuoted() throws -> String {
        let open = index
        let quote = bytes[index]
        index += 1
        let start = index
        // Fast path: no escape.
        while index < bytes.count && bytes[index] != quote && bytes[index] != 0x5C { index += 1 }
        guard index < bytes.count else { throw error("a string opened with \(quote == 0x22 ? "\"" : "'") is never closed", at: open) }
        if bytes[index] == quote {
            let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            index += 1
            return s
        }
        var out: [UInt8] = Array(bytes[start..<index])
        var pendingHigh: UInt16?
        func flushHigh(_ out: inout [UInt8]) {
            if pendingHigh != nil {
                out.append(contentsOf: [0xEF, 0xBF, 0xBD])  // U+FFFD for a lone surrogate
                pendingHigh = nil
            }
        }
        while true {
            guard index < bytes.count else { throw error("a string opened with \(quote == 0x22 ? "\"" : "'") is never closed", at: open) }
            let b = bytes[index]
            if b == quote {
                flushHigh(&out)
                index += 1
                return String(decoding: out, as: UTF8.self)
            }
            guard b == 0x5C else {
                flushHigh(&out)
                out.append(b)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw error("a string ends in a lone backslash", at: open) }
            let e = bytes[index]
            index += 1
            if e == 0x55 {  // \U: up to 4 hex digits, one UTF-16 unit
                var unit: UInt16 = 0
                var digits = 0
                while digits < 4, index < bytes.count, let v = Self.hexValue(bytes[index]) {
                    unit = unit << 4 | UInt16(v)
                    digits += 1
                    index += 1
                }
                if digits == 0 {
                    flushHigh(&out)
                    out.append(0x55)
                    continue
                }
                if (0xD800...0xDBFF).contains(unit) {
                    flushHigh(&out)
                    pendingHigh = unit
                } else if (0xDC00...0xDFFF).contains(unit), let high = pendingHigh {
                    pendingHigh = nil
                    let scalar = 0x10000 + (UInt32(high - 0xD800) << 10) + UInt32(unit - 0xDC00)
                    Self.appendUTF8(scalar, to: &out)
                } else {
                    flushHigh(&out)
                    Self.appendUTF8(UInt32(unit), to: &out)
                }
                continue
            }
            flushHigh(&out)
            switch e {
            case 0x61: out.append(0x07)  // \a
            case 0x62: out.append(0x08)  // \b
            case 0x66: out.append(0x0C)  // \f
            case 0x6E: out.append(0x0A)  // \n
            case 0x72: out.append(0x0D)  // \r
            case 0x74: out.append(0x09)  // \t
            case 0x76: out.append(0x0B)  // \v
            case 0x30...0x37:  // \ooo
                var value = UInt32(e - 0x30)
                var digits = 1
                while digits < 3, index < bytes.count, (0x30...0x37).contains(bytes[index]) {
                    value = value << 3 | UInt32(bytes[index] - 0x30)
                    digits += 1
                    index += 1
                }
                Self.appendUTF8(NeXTSTEPEncoding.unicode(forByte: UInt8(truncatingIfNeeded: value)), to: &out)
            default:
                out.append(e)  // \" \' \\ and any other character stand for themselves
            }
        }
    }

    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        guard let s = Unicode.Scalar(scalar) else {
            out.append(contentsOf: [0xEF, 0xBF, 0xBD])
            return
        }
        out.append(contentsOf: Array(String(Character(s)).utf8))
    }
}
