import Foundation

/// One cached media file, as recorded in the cache's index.
@_spi(RichPushInternal)
public struct MediaCacheEntry: Sendable, Equatable, Codable {
    /// The SHA-256 hex of the URL: the file is `<key>.media` (the URL itself is not stored).
    public var key: String
    /// The file's size in bytes.
    public var bytes: Int
    /// When it was stored or last served, in seconds since 1970 (the LRU order).
    public var lastUsed: Double
    /// When it stops being fresh, in seconds since 1970.
    public var expires: Double

    /// Makes an entry.
    /// - Parameters:
    ///   - key: the URL's SHA-256 hex.
    ///   - bytes: size in bytes.
    ///   - lastUsed: seconds since 1970.
    ///   - expires: seconds since 1970.
    public init(key: String, bytes: Int, lastUsed: Double, expires: Double) {
        self.key = key
        self.bytes = bytes
        self.lastUsed = lastUsed
        self.expires = expires
    }
}
