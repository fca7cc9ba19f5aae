/// Finds class declarations in Swift and Objective-C source text (for `NSExtensionPrincipalClass`).
///
/// Looks for `class Name` (Swift) and `@implementation Name` / `@objc(Name)` (Objective-C
/// names), with the name standing alone (not a prefix of a longer identifier). Comments are not
/// stripped: a class named only in a comment counts, which errs on the side of no false error.
enum SourceScan {
    static func declares(swiftClass name: String, in text: String) -> Bool {
        occurs("class " + name, in: text)
    }

    static func declares(objectiveCClass name: String, in text: String) -> Bool {
        occurs("@implementation " + name, in: text) || text.contains("@objc(\(name))")
    }

    /// Whether `needle` occurs in `text` at an identifier boundary on both sides.
    static func occurs(_ needle: String, in text: String) -> Bool {
        let haystack = Array(text.utf8)
        let pattern = Array(needle.utf8)
        guard !pattern.isEmpty, haystack.count >= pattern.count else { return false }
        var i = 0
        while i + pattern.count <= haystack.count {
            if haystack[i] == pattern[0] && Array(haystack[i..<(i + pattern.count)]) == pattern {
                let before = i == 0 ? UInt8(ascii: " ") : haystack[i - 1]
                let after = i + pattern.count < haystack.count ? haystack[i + pattern.count] : UInt8(ascii: " ")
                if !isIdentifier(before) && !isIdentifier(after) { return true }
            }
            i += 1
        }
        return false
    }

    static func isIdentifier(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b >= 0x80
    }
}
