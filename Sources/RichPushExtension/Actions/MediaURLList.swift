import Foundation

/// The media URLs a payload names, in order: one string, an array of strings, or a dictionary of
/// URLs (OneSignal's `att`), at the first configured key path that holds one (the pipeline
/// downloads them concurrently within one deadline and attaches each that succeeds, in this
/// order). The rules are `RichPushPayloadLookup.media(in:keyPaths:)`'s, shared with `richpush lint`.
@_spi(RichPushInternal)
public enum MediaURLList {
    /// At most 10 attachments per notification (`RichPushPayloadLookup.maximumMediaCount`).
    public static let maximumCount = RichPushPayloadLookup.maximumMediaCount

    /// The media URL strings named by the payload.
    ///
    /// - Parameters:
    ///   - payload: the payload (after decryption).
    ///   - keyPaths: the ordered key paths (e.g. `RichPushPayloadKeyPath.defaultMediaKeyPaths`).
    /// - Returns: up to `maximumCount` strings, empty strings and deep links skipped; empty when none.
    public static func urls(in payload: RichPushJSONValue, keyPaths: [RichPushPayloadKeyPath]) -> [String] {
        RichPushPayloadLookup.media(in: payload, keyPaths: keyPaths).urls
    }
}
