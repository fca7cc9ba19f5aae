import Foundation
import RichPushCore

/// What a device tag may be (`POST /v1/devices` `tags`, campaign audiences `{"tags": {"any": […]}}`):
/// 1…64 bytes of ASCII letters, digits and `_ - . :` (e.g. `beta`, `lang:fr`, `plan.pro`), at
/// most 32 per device and per audience. Bounded so that one registration costs a few rows and
/// an audience one index range per tag.
enum DeviceTagRule {
    /// The longest tag, bytes.
    static let maximumBytes = 64
    /// The most tags per device (and per audience).
    static let maximumCount = 32
    /// What the 400s say a tag is.
    static let summary = "1…64 bytes of letters, digits and _ - . : (e.g. \"beta\", \"lang:fr\")"

    /// Whether `tag` is a tag.
    ///
    /// - Parameter tag: the candidate.
    /// - Returns: `true` when it follows the rule.
    static func isValid(_ tag: String) -> Bool {
        let bytes = tag.utf8
        guard (1...maximumBytes).contains(bytes.count) else { return false }
        return bytes.allSatisfy { b in
            (48...57).contains(b) || (65...90).contains(b) || (97...122).contains(b) || b == 95 || b == 45 || b == 46 || b == 58
        }
    }

    /// Reads a JSON array of tags: duplicates removed, in the given order.
    ///
    /// - Parameters:
    ///   - value: the JSON value.
    ///   - field: the field's name, for the 400.
    ///   - allowEmpty: whether `[]` is accepted (a device's tags may be cleared; an audience needs one).
    /// - Returns: the tags.
    /// - Throws: `HTTPResponseError` 400 naming `field`.
    static func tags(_ value: RichPushJSONValue, field: String, allowEmpty: Bool = true) throws -> [String] {
        guard let list = value.arrayValue, allowEmpty || !list.isEmpty, list.count <= maximumCount else {
            throw HTTPResponseError(
                field: field, message: "\(field) must be an array of \(allowEmpty ? 0 : 1)…\(maximumCount) tags, each \(summary)")
        }
        var seen = Set<String>()
        var out: [String] = []
        for (index, item) in list.enumerated() {
            guard let tag = item.stringValue, isValid(tag) else {
                throw HTTPResponseError(field: field, message: "\(field)[\(index)] is not a tag: a tag is \(summary)")
            }
            if seen.insert(tag).inserted { out.append(tag) }
        }
        return out
    }
}
