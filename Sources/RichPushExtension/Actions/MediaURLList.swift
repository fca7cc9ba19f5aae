import Foundation

/// The media URLs a payload names, in order: one string, an array of strings, or a dictionary of
/// URLs (OneSignal's `att`), at the first configured key path that holds one (the pipeline
/// downloads them concurrently within one deadline and attaches each that succeeds, in this
/// order). The rules are `PayloadLookup.media(in:keyPaths:)`'s, shared with `richpush lint`.
public enum MediaURLList {
    /// At most 10 attachments per notification (`PayloadLookup.maximumMediaCount`).
    public static let maximumCount = PayloadLookup.maximumMediaCount

    /// The media URL strings named by the payload.
    ///
    /// - Parameters:
    ///   - payload: the payload (after decryption).
    ///   - keyPaths: the ordered key paths (e.g. `PayloadKeyPath.defaultMediaKeyPaths`).
    /// - Returns: up to `maximumCount` strings, empty strings and deep links skipped; empty when none.
    public static func urls(in payload: JSONValue, keyPaths: [PayloadKeyPath]) -> [String] {
        PayloadLookup.media(in: payload, keyPaths: keyPaths).urls
    }
}
