/// A JSON string kept exactly: its Unicode scalars as sent (a raw U+FEFF, combining marks, no
/// normalization) and, when it holds one, an unpaired UTF-16 surrogate escape such as `"\ud800"`.
///
/// RFC 8259 §8.2 allows such escapes (a JavaScript backend that cuts a string in the middle of an
/// emoji writes one); Swift's `String` cannot hold them. `value` shows each as U+FFFD for code that
/// reads the text, and the exact UTF-16 code units are kept so the string is written back as it
/// came (`\ud800`), never silently changed.
///
/// Two strings are equal when their scalars (and surrogates) are identical: unlike `String`'s `==`,
/// `"é"` (U+00E9) and `"é"` (e + U+0301) differ, because APNs and the app receive different bytes.
public struct RichPushJSONString: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The text; each unpaired surrogate appears as U+FFFD (REPLACEMENT CHARACTER).
    public let value: String
    /// The exact UTF-16 code units, only when the string holds an unpaired surrogate.
    private let unpairedUTF16: [UInt16]?
    /// The JSON text between the quotes as the parser read it, for a string with an unpaired
    /// surrogate: written back as it came (`\uD800` stays upper case).
    let spelling: String?

    /// Wraps a Swift string (which never holds an unpaired surrogate).
    /// - Parameter value: the text.
    public init(_ value: String) {
        self.value = value
        unpairedUTF16 = nil
        spelling = nil
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Makes a string from UTF-16 code units, keeping unpaired surrogates.
    ///
    /// - Parameter codeUnits: UTF-16 code units; a high surrogate followed by a low one is one
    ///   scalar, any other surrogate is kept as it is.
    public init<C: Collection>(utf16CodeUnits codeUnits: C) where C.Element == UInt16 {
        self.init(utf16CodeUnits: codeUnits, spelling: nil)
    }

    /// Makes a string from UTF-16 code units and, from the parser, the escaped text it was read from.
    init<C: Collection>(utf16CodeUnits codeUnits: C, spelling: String?) where C.Element == UInt16 {
        var text = ""
        var unpaired = false
        for result in Self.scalars(codeUnits) {
            switch result {
            case .scalar(let s): text.unicodeScalars.append(s)
            case .unpaired:
                text.unicodeScalars.append("\u{FFFD}")
                unpaired = true
            }
        }
        value = text
        unpairedUTF16 = unpaired ? Array(codeUnits) : nil
        self.spelling = unpaired ? spelling : nil
    }

    /// Whether the string holds an unpaired surrogate (shown as U+FFFD in `value`).
    public var hasUnpairedSurrogates: Bool { unpairedUTF16 != nil }

    /// The exact UTF-16 code units (unpaired surrogates included).
    public var utf16CodeUnits: [UInt16] { unpairedUTF16 ?? Array(value.utf16) }

    public var description: String { value }

    /// Whether the string has no characters.
    public var isEmpty: Bool { value.isEmpty && unpairedUTF16 == nil }

    public static func == (a: RichPushJSONString, b: RichPushJSONString) -> Bool {
        if a.unpairedUTF16 != nil || b.unpairedUTF16 != nil { return a.utf16CodeUnits == b.utf16CodeUnits }
        return a.value.utf8.elementsEqual(b.value.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        if let units = unpairedUTF16 {
            hasher.combine(1 as UInt8)
            hasher.combine(units)
        } else {
            hasher.combine(0 as UInt8)
            for byte in value.utf8 { hasher.combine(byte) }
        }
    }

    /// Orders by UTF-16 code units (as JavaScript and most JSON tools sort keys).
    public static func < (a: RichPushJSONString, b: RichPushJSONString) -> Bool {
        a.utf16CodeUnits.lexicographicallyPrecedes(b.utf16CodeUnits)
    }

    /// A scalar, or an unpaired surrogate code unit.
    enum Piece: Equatable {
        case scalar(Unicode.Scalar)
        case unpaired(UInt16)
    }

    /// Decodes UTF-16 code units, pairing surrogates where they pair.
    static func scalars<C: Collection>(_ units: C) -> [Piece] where C.Element == UInt16 {
        var out: [Piece] = []
        var pendingHigh: UInt16?
        for unit in units {
            if let high = pendingHigh {
                pendingHigh = nil
                if (0xDC00...0xDFFF).contains(unit) {
                    let value = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(unit) - 0xDC00)
                    if let s = Unicode.Scalar(value) { out.append(.scalar(s)) }
                    continue
                }
                out.append(.unpaired(high))
            }
            if (0xD800...0xDBFF).contains(unit) {
                pendingHigh = unit
            } else if (0xDC00...0xDFFF).contains(unit) {
                out.append(.unpaired(unit))
            } else if let s = Unicode.Scalar(UInt32(unit)) {
                out.append(.scalar(s))
            }
        }
        if let high = pendingHigh { out.append(.unpaired(high)) }
        return out
    }
}
