/// What the extension-depth steps did for one notification: decryption, media list and cache,
/// buttons, thumbnail options, badge (issue 6), the message's sender (issue 30). Part of `RichPushResult`.
public struct RichPushResultDetails: Sendable, Equatable {
    /// `nil` when the payload had no `enc`; `"decrypted"`; or the `DecryptError` code
    /// (`unknown_kid`, `bad_tag`, `truncated`, `bad_base64`, `bad_json`, `bad_version`, `bad_envelope`).
    public var decryption: String?
    /// Media URLs the payload named (a string counts 1; an array up to `MediaURLList.maximumCount`).
    public var mediaRequested: Int = 0
    /// Media attached, in payload order.
    public var mediaAttached: Int = 0
    /// Media served from the cache (no network request).
    public var cacheHits: Int = 0
    /// Milliseconds spent getting media (network or cache), 0 when none was fetched.
    public var fetchMs: Int = 0
    /// The category made from the payload's `buttons`, to register (merged with the app's own).
    public var category: RichPushCategoryDescription?
    /// The payload's thumbnail options, for every attachment.
    public var thumbnail: RichPushThumbnailOptions?
    /// The badge set from `badge_op`, when applied.
    public var badge: Int?
    /// Codes of payload parts that were ignored: `invalid_buttons`, `invalid_thumbnail`,
    /// `invalid_badge_op`, `badge_no_container` (no shared container: `aps.badge` kept as sent),
    /// `badge_repeat` (this push's `badge_op` was already applied), `badge_io`.
    public var notes: [String] = []
    /// The message's sender, conversation and avatars, when the payload names a `sender`
    /// (communication notifications); `nil` otherwise.
    public var communication: Communication?

    /// Nothing done.
    public init() {}
}
