/// Text that quotes a payload, made safe to print on a terminal: what a terminal would act on
/// or reorder instead of show is written as `\u{…}`.
///
/// A payload comes from whoever sends the push: an ESC in a sender's name would drive the
/// terminal (ECMA-48 escape sequences: colours, cursor moves, a changed window title), a NUL or
/// a carriage return hide what precedes it, and a right-to-left override (U+202E) makes text read
/// as something else (Unicode's "Trojan Source" characters, CVE-2021-42574). Escaped: C0 controls
/// except newline and tab, DEL, C1 controls, and the bidirectional formatting characters
/// (U+061C, U+200E, U+200F, U+202A…U+202E, U+2066…U+2069). `--json` output is JSON-escaped
/// already and is not changed.
enum TerminalText {
    /// `text` with each such character written as `\u{XXXX}`.
    /// - Parameter text: text to print.
    /// - Returns: the same text when it has none (the common case), otherwise the escaped copy.
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isHidden) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if isHidden(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether the terminal would act on `scalar` (or reorder text around it) rather than show it.
    static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return false
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
