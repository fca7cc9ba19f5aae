import Foundation

extension RichPushJSONValue {
    /// Serialises the value as compact JSON text, every number and string exactly as held.
    ///
    /// Numbers are written as their text (`18446744073709551615`, `1e400`, `0.1000`); strings as
    /// their UTF-8, escaping only what JSON requires (`"`, `\`, control characters) and an
    /// unpaired surrogate as `\udXXX` (a parsed string holding one is written exactly as it was
    /// read); slashes are not escaped. Parsing the output gives an equal
    /// value.
    /// - Parameter sortedKeys: sort object keys by their UTF-8 bytes (stable output for tests,
    ///   diffs and signatures); otherwise in dictionary order.
    /// - Returns: UTF-8 JSON bytes.
    public func jsonData(sortedKeys: Bool = true) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out, sortedKeys: sortedKeys)
        return Data(out)
    }

    /// The value as compact JSON text with sorted keys (the same bytes as `jsonData()`).
    /// - Returns: the JSON text.
    public func compactText() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(into: &out, sortedKeys: true)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the value as compact JSON to a byte buffer (no intermediate `Data` or `String`:
    /// used where one line is written per device token).
    /// - Parameters:
    ///   - out: the buffer.
    ///   - sortedKeys: sort object keys by their UTF-8 bytes.
    public func write(into out: inout [UInt8], sortedKeys: Bool = true) {
        switch self {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b): out.append(contentsOf: b ? Array("true".utf8) : Array("false".utf8))
        case .number(let n): out.append(contentsOf: n.text.utf8)
        case .string(let s): Self.write(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (index, element) in a.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out, sortedKeys: sortedKeys)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            let keys = sortedKeys ? o.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } : Array(o.keys)
            for (index, key) in keys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.write(key, into: &out)
                out.append(UInt8(ascii: ":"))
                o[key]?.write(into: &out, sortedKeys: sortedKeys)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Writes a JSON string: its exact scalars, unpaired surrogates as `\udXXX` escapes.
    /// - Parameters:
    ///   - string: the string.
    ///   - out: the buffer.
    public static func write(_ string: RichPushJSONString, into out: inout [UInt8]) {
        guard string.hasUnpairedSurrogates else {
            write(string.value, into: &out)
            return
        }
        out.append(UInt8(ascii: "\""))
        if let spelling = string.spelling {
            // As the parser read it: the escapes keep their spelling (`\uD800` stays upper case).
            out.append(contentsOf: spelling.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for piece in RichPushJSONString.scalars(string.utf16CodeUnits) {
            switch piece {
            case .scalar(let scalar):
                appendEscaped(scalar, into: &out)
            case .unpaired(let unit):
                out.append(contentsOf: Array("\\u".utf8))
                appendHex(unit, into: &out)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Writes a Swift string as a JSON string, escaping only what JSON requires.
    /// - Parameters:
    ///   - string: the text.
    ///   - out: the buffer.
    public static func write(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        // One pass over contiguous UTF-8 (a native string's own storage): this runs for every
        // field of every result line.
        string.withUTF8 { bytes in
            var plain = true
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                plain = false
                break
            }
            if plain {
                out.append(contentsOf: bytes)
            } else {
                for byte in bytes { appendEscaped(byte, into: &out) }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Writes a key and its string value (`"key":"value"`), for writers that lay out an object
    /// field by field in sorted key order.
    /// - Parameters:
    ///   - key: the key (written as is: plain ASCII without quotes or backslashes).
    ///   - value: the value, escaped as JSON requires; `nil` is written `null`.
    ///   - out: the buffer.
    public static func writeField(_ key: StaticString, _ value: String?, into out: inout [UInt8]) {
        appendKey(key, into: &out)
        if let value { write(value, into: &out) } else { out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }
    }

    /// Writes a key and its integer value (`"key":12`); `nil` is written `null`.
    /// - Parameters:
    ///   - key: the key (plain ASCII).
    ///   - value: the number.
    ///   - out: the buffer.
    public static func writeField(_ key: StaticString, _ value: Int?, into out: inout [UInt8]) {
        appendKey(key, into: &out)
        if let value { out.append(contentsOf: String(value).utf8) } else { out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }
    }

    private static func appendKey(_ key: StaticString, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    private static func appendEscaped(_ scalar: Unicode.Scalar, into out: inout [UInt8]) {
        if scalar.value < 0x80 {
            appendEscaped(UInt8(scalar.value), into: &out)
        } else {
            out.append(contentsOf: String(Character(scalar)).utf8)
        }
    }

    /// One UTF-8 byte, escaped when JSON requires it (bytes ≥ 0x80 pass through).
    private static func appendEscaped(_ byte: UInt8, into out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
        case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
        case 0..<0x20:
            out.append(contentsOf: Array("\\u".utf8))
            appendHex(UInt16(byte), into: &out)
        default: out.append(byte)
        }
    }

    private static func appendHex(_ unit: UInt16, into out: inout [UInt8]) {
        let digits = Array("0123456789abcdef".utf8)
        for shift in stride(from: 12, through: 0, by: -4) {
            out.append(digits[Int((unit >> UInt16(shift)) & 0xF)])
        }
    }
}
