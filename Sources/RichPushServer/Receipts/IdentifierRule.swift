import Foundation

/// What a `push_id` or `receipt_id` may hold: 1…128 bytes of UTF-8 (`RichPushReceipt.Limits`) of
/// printable text. Refused, because they hide or reorder what the dashboard shows (an id with
/// U+202E RIGHT-TO-LEFT OVERRIDE displays as another id) or break lines and logs:
/// - control characters: U+0000–U+001F, U+007F–U+009F (C0, DEL, C1);
/// - format characters (Unicode category Cf): the bidirectional controls U+061C, U+200E, U+200F,
///   U+202A–U+202E, U+2066–U+2069, and the invisible ones such as U+200B ZERO WIDTH SPACE,
///   U+00AD SOFT HYPHEN and U+FEFF;
/// - the line and paragraph separators U+2028, U+2029;
/// - noncharacters (U+FFFE, U+FFFF, U+FDD0–U+FDEF, …).
///
/// Letters, digits, punctuation, symbols, emoji and spaces of every script are fine, and so is
/// U+200D ZERO WIDTH JOINER between two emoji (Unicode's emoji ZWJ sequences: 👩‍💻, 👨‍👩‍👧, 🏳️‍🌈),
/// where it draws one emoji instead of two; anywhere else it is an invisible format character.
public enum IdentifierRule {
    /// The rule in one sentence, for error messages.
    public static let summary =
        "push and receipt ids must be printable text: no control (U+0000–U+001F, U+007F–U+009F), bidirectional-control, invisible format or line-separator characters (a zero width joiner only inside an emoji sequence)"

    /// The first character that breaks the rule, with its position and kind; `nil` when `value` follows it.
    ///
    /// - Parameter value: the id.
    /// - Returns: the offending scalar, its 1-based position in scalars, and what kind it is.
    public static func firstViolation(in value: String) -> (scalar: Unicode.Scalar, position: Int, kind: String)? {
        // Printable ASCII (what nearly every id is) needs no Unicode property lookups.
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return nil }
        let scalars = Array(value.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            if let kind = kind(of: scalar), !joinsEmoji(scalars, at: index) { return (scalar, index + 1, kind) }
        }
        return nil
    }

    /// Whether `scalars[index]` is U+200D ZERO WIDTH JOINER inside an emoji ZWJ sequence (Unicode
    /// TS #51: an emoji, optionally its U+FE0F presentation selector, the joiner, an emoji).
    static func joinsEmoji(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        guard scalars[index].value == 0x200D, index > 0, index + 1 < scalars.count else { return false }
        var before = index - 1
        if scalars[before].value == 0xFE0F, before > 0 { before -= 1 }
        return isEmoji(scalars[before]) && isEmoji(scalars[index + 1])
    }

    /// An emoji other than the ASCII characters Unicode also lists as emoji (`#`, `*`, `0`–`9`).
    private static func isEmoji(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x7F && scalar.properties.isEmoji
    }

    /// Why `scalar` is not allowed ("a control character", "a bidirectional control", …), or `nil`
    /// (U+200D is "an invisible format character" here; `joinsEmoji(_:at:)` lets it join emoji).
    static func kind(of scalar: Unicode.Scalar) -> String? {
        let v = scalar.value
        if v < 0x20 || (0x7F...0x9F).contains(v) { return "a control character" }
        if v == 0x061C || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) {
            return "a bidirectional control"
        }
        switch scalar.properties.generalCategory {
        case .format: return "an invisible format character"
        case .lineSeparator, .paragraphSeparator: return "a line separator"
        case .control, .surrogate: return "a control character"
        default: break
        }
        if scalar.properties.isNoncharacterCodePoint { return "a noncharacter" }
        return nil
    }

    /// `U+202E RIGHT-TO-LEFT OVERRIDE` (or just `U+0007` when the scalar has no name).
    static func describe(_ scalar: Unicode.Scalar) -> String {
        let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        let name = scalar.properties.name ?? scalar.properties.nameAlias
        return name.map { "\(code) \($0)" } ?? code
    }

    /// `value` with every scalar the rule refuses replaced by U+FFFD, for showing ids stored
    /// before the rule existed.
    ///
    /// - Parameter value: an id.
    /// - Returns: the id, safe to display.
    public static func displayable(_ value: String) -> String {
        guard firstViolation(in: value) != nil else { return value }
        var out = String.UnicodeScalarView()
        let scalars = Array(value.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            out.append(kind(of: scalar) == nil || joinsEmoji(scalars, at: index) ? scalar : "\u{FFFD}")
        }
        return String(out)
    }
}

extension String {
    /// The string padded on the left with zeros to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
