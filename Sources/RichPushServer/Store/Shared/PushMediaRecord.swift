import Foundation

/// What the send-time media check found and did for one media URL of a push: the original URL
/// (kept in the send record), the probe's reason (`nil` = the extension would attach it), the
/// original type and size, and the optimised copy the edge served instead, if any.
public struct PushMediaRecord: Sendable, Equatable {
    /// The push.
    public var pushID: String
    /// The media URL as the request gave it.
    public var originalURL: String
    /// The extension's reason code the probe found (`unsupported_format`, `too_large`, …), `nil` when ok.
    public var reason: String?
    /// What was done: `checked` (sent as is), `optimized` (the edge URL sent), `refused`
    /// (the push was refused, 422), `sent_text` (sent without the media).
    public var action: String
    /// The detected original type (UTType-like, e.g. `org.webmproject.webp`), if known.
    public var originalType: String?
    /// The original's bytes, if fetched.
    public var originalBytes: Int?
    /// The SHA-256 of the optimised copy on the edge (makes it referenced), if any.
    public var sha256: String?
    /// The optimised copy's `Content-Type`, if any.
    public var optimizedType: String?
    /// The optimised copy's bytes, if any.
    public var optimizedBytes: Int?
    /// The URL the payload carried instead of `originalURL` (the edge's), if any.
    public var sentURL: String?
    /// When, ms since 1970.
    public var recordedAtMs: Int

    /// Makes a record.
    public init(
        pushID: String, originalURL: String, reason: String?, action: String, originalType: String? = nil, originalBytes: Int? = nil,
        sha256: String? = nil, optimizedType: String? = nil, optimizedBytes: Int? = nil, sentURL: String? = nil, recordedAtMs: Int
    ) {
        self.pushID = pushID
        self.originalURL = originalURL
        self.reason = reason
        self.action = action
        self.originalType = originalType
        self.originalBytes = originalBytes
        self.sha256 = sha256
        self.optimizedType = optimizedType
        self.optimizedBytes = optimizedBytes
        self.sentURL = sentURL
        self.recordedAtMs = recordedAtMs
    }
}
