import Foundation

/// The media URLs a payload names, in order: one string, or an array of strings, at the first
/// configured key path that holds either (the pipeline downloads them concurrently within one
/// deadline and attaches each that succeeds, in this order).
public enum MediaURLList {
    /// At most 10 attachments per notification (our bound: iOS shows the first as the thumbnail
    /// and the rest in the expanded view; more only spends the extension's 30 s and 24 MB).
    public static let maximumCount = 10

    /// The media URL strings named by the payload.
    ///
    /// - Parameters:
    ///   - payload: the payload (after decryption).
    ///   - keyPaths: the ordered key paths (e.g. `PayloadKeyPath.defaultMediaKeyPaths`).
    /// - Returns: up to `maximumCount` strings, empty strings skipped; empty when none.
    public static func urls(in payload: JSONValue, keyPaths: [PayloadKeyPath]) -> [String] {
        for path in keyPaths {
            switch path.lookup(in: payload) {
            case .string(let s) where !s.value.trimmingCharacters(in: .whitespaces).isEmpty:
                return [s.value]
            case .array(let elements):
                let strings = elements.compactMap(\.stringValue).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                if !strings.isEmpty { return Array(strings.prefix(maximumCount)) }
            default:
                continue
            }
        }
        return []
    }
}
