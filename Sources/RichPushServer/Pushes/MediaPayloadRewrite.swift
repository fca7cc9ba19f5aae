import Foundation
import RichPushCore

/// Changes the media URLs at the key path the extension reads them from (`RichPushPayloadLookup.media`):
/// each URL replaced by the media edge's, or removed (`"on_media_error": "send_text"`). The key
/// path is walked as `RichPushPayloadKeyPath.lookup` walks it (the longest literal key first, so
/// `com.urbanairship.media_attachment.url` and `gcm.…` keys are found where the extension finds
/// them); a string, an array of strings, or a dictionary of URLs (OneSignal's `att`) is rewritten.
enum MediaPayloadRewrite {
    /// Rewrites the media URLs at `path`.
    ///
    /// - Parameters:
    ///   - payload: the payload.
    ///   - path: the key path the media was found at.
    ///   - replacements: original URL → the URL to send instead, or `nil` to remove it.
    /// - Returns: the new payload; the member at `path` is removed when no URL is left in it.
    static func rewrite(_ payload: RichPushJSONValue, at path: RichPushPayloadKeyPath, replacements: [String: String?]) -> RichPushJSONValue {
        rewrite(path.components[...], in: payload, replacements: replacements) ?? payload
    }

    /// The node with the value at `rest` rewritten; `nil` when `rest` does not lead to a value.
    private static func rewrite(_ rest: ArraySlice<String>, in node: RichPushJSONValue, replacements: [String: String?]) -> RichPushJSONValue? {
        guard case .object(var object) = node else { return nil }
        var end = rest.endIndex
        while end > rest.startIndex {
            let key = rest[rest.startIndex..<end].joined(separator: ".")
            if let child = object[key] {
                if end == rest.endIndex {
                    object[key] = rewritten(child, replacements: replacements)
                    return .object(object)
                }
                if let changed = rewrite(rest[end...], in: child, replacements: replacements) {
                    object[key] = changed
                    return .object(object)
                }
            }
            end -= 1
        }
        return nil
    }

    /// The media value with its URLs replaced or removed; `nil` when none is left.
    private static func rewritten(_ value: RichPushJSONValue, replacements: [String: String?]) -> RichPushJSONValue? {
        // A member that is not a string stays; a string is replaced, kept, or removed (`nil`).
        func replace(_ member: RichPushJSONValue) -> RichPushJSONValue? {
            guard let string = member.stringValue, let replacement = replacements[string] else { return member }
            return replacement.map { RichPushJSONValue.string($0) }
        }
        switch value {
        case .string:
            return replace(value)
        case .array(let elements):
            let kept = elements.compactMap(replace)
            return kept.contains { $0.stringValue != nil } ? .array(kept) : nil
        case .object(let members):
            let kept = members.compactMapValues(replace)
            return kept.values.contains { $0.stringValue?.contains("://") == true } ? .object(kept) : nil
        default:
            return value
        }
    }
}
