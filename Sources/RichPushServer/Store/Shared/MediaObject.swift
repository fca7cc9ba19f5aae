import Foundation

/// One file the media edge serves: push-optimised bytes stored under their SHA-256
/// (content-addressed: the same bytes are stored once, whichever push or instance made them).
public struct MediaObject: Sendable, Equatable {
    /// The SHA-256 of `bytes`, 64 lowercase hex digits (the name in `/m/<sha256>.<ext>` and the `ETag`).
    public var sha256: String
    /// The file extension served, without the dot (`jpg`, `png`, `gif`).
    public var fileExtension: String
    /// The `Content-Type` served, e.g. `image/jpeg`.
    public var contentType: String
    /// The file's bytes.
    public var bytes: Data
    /// When it was last stored, ms since 1970: a push that makes the same copy again stores it
    /// again, so eviction takes the least recently used first.
    public var storedAtMs: Int

    /// How long a push's record keeps its copy from eviction: 30 days, the longest APNs keeps a
    /// notification for a device that is offline (its `apns-expiration`), after which no device
    /// can still receive the push and fetch the file.
    public static let referenceRetentionMs = 30 * 86_400_000

    /// Makes an object, hashing `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: the file.
    ///   - fileExtension: the extension without the dot.
    ///   - contentType: the media type.
    ///   - storedAtMs: when, ms since 1970.
    public init(bytes: Data, fileExtension: String, contentType: String, storedAtMs: Int) {
        self.sha256 = MediaObject.hexDigest(bytes)
        self.fileExtension = fileExtension
        self.contentType = contentType
        self.bytes = bytes
        self.storedAtMs = storedAtMs
    }

    /// Makes an object read back from a store (the digest as stored).
    init(sha256: String, fileExtension: String, contentType: String, bytes: Data, storedAtMs: Int) {
        self.sha256 = sha256
        self.fileExtension = fileExtension
        self.contentType = contentType
        self.bytes = bytes
        self.storedAtMs = storedAtMs
    }

    /// The path the edge serves it at, `/m/<sha256>.<ext>`.
    public var path: String { "/m/\(sha256).\(fileExtension)" }

    /// Whether `text` is a SHA-256 as the edge names files: 64 lowercase hex digits.
    ///
    /// - Parameter text: the candidate.
    /// - Returns: `true` when it is one.
    static func isDigest(_ text: Substring) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The lowercase hex SHA-256 of `data` (OpenSSL).
    static func hexDigest(_ data: Data) -> String {
        MediaDigest.sha256(data).map { String(format: "%02x", $0) }.joined()
    }
}
