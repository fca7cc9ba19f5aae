/// How many terminal columns a string takes, for aligning table columns that hold push ids in
/// any script: East Asian Wide and Fullwidth characters (Unicode Standard Annex #11: CJK, kana,
/// Hangul, fullwidth forms) and emoji shown as emoji take 2 columns; combining marks, variation
/// selectors and other format characters take 0; everything else 1 (what `wcwidth(3)` counts).
enum DisplayWidth {
    /// The columns `text` takes in a terminal.
    /// - Parameter text: the text.
    /// - Returns: the width, in columns.
    static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + of($1) }
    }

    /// The columns one scalar takes: 0, 1 or 2.
    /// - Parameter scalar: the scalar.
    /// - Returns: the width, in columns.
    static func of(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        // Hangul vowels and finals that join a leading consonant into one syllable block.
        if (0x1160...0x11FF).contains(scalar.value) || (0xD7B0...0xD7FF).contains(scalar.value) { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        return wide.contains { $0.contains(scalar.value) } ? 2 : 1
    }

    /// The East Asian Wide (W) and Fullwidth (F) blocks of UAX #11 (EastAsianWidth.txt).
    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul Jamo leading consonants
        0x2329...0x232A,  // angle brackets
        0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
        0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK strokes, enclosed and compatibility
        0x3400...0x4DBF,  // CJK Unified Ideographs Extension A
        0x4E00...0x9FFF,  // CJK Unified Ideographs
        0xA000...0xA4CF,  // Yi
        0xA960...0xA97F,  // Hangul Jamo Extended-A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK Compatibility Ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
        0xFF00...0xFF60,  // fullwidth forms
        0xFFE0...0xFFE6,  // fullwidth signs
        0x16FE0...0x16FE4,  // ideographic symbols
        0x17000...0x18CFF,  // Tangut
        0x1B000...0x1B2FF,  // kana supplement and extensions, Nushu
        0x1F200...0x1F2FF,  // enclosed ideographic supplement
        0x20000...0x2FFFD,  // CJK Extensions B–F, compatibility supplement
        0x30000...0x3FFFD,  // CJK Extensions G–H
    ]
}
