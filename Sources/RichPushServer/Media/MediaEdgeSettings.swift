import Foundation
import RichPushCore

/// The media edge's settings (`richpush serve --media-store-bytes N`): where devices fetch the
/// optimised files (`--public-url`, https for iOS's App Transport Security) and how many bytes of
/// files the store keeps.
public struct MediaEdgeSettings: Sendable, Equatable {
    /// The public URL the edge URLs start with, without a trailing `/` (e.g. `https://push.example.com`).
    public let publicURL: String
    /// The most bytes of file content kept (`--media-store-bytes`); past it the oldest unreferenced
    /// files are evicted.
    public let storeBytes: Int

    /// The bytes of files each instance keeps in memory (`--media-cache-bytes`, default 64 MB;
    /// 0 keeps none): `GET /m/…` answers them without a store read.
    public var cacheBytes = MediaObjectCache.defaultBytes

    /// The smallest `--media-store-bytes`: 1 MB (a few optimised images of ≤ 300 KB, article 004).
    public static let minimumStoreBytes = 1_000_000

    /// What the errors call the settings: the program's own names (the command line's options,
    /// `SettingNames.mediaEdge` in `RichPushCLI`), or these words by default.
    public struct Names: Sendable, Equatable {
        /// The server's public URL.
        public var publicURL = "the public URL"
        /// The bound on the edge's files, in bytes.
        public var storeBytes = "the media store bound"
        /// The edge's own public URL, when it is not the server's.
        public var mediaPublicURL = "the media edge's own public URL"
        /// The switch that allows an `http://` public URL (tests only).
        public var allowHTTP = "the switch allowing http"

        /// The default words.
        public init() {}
    }

    /// Checks and makes the settings.
    ///
    /// - Parameters:
    ///   - publicURL: `--public-url`; `nil` when not given.
    ///   - storeBytes: `--media-store-bytes`.
    ///   - allowHTTP: `--media-edge-allow-http` (tests only: iOS refuses `http://` media without an ATS exception).
    ///   - names: what the errors call these settings.
    /// - Throws: `RichPushError` `usage` naming the fix: no public URL, an `http://` one without
    ///   `allowHTTP`, or a bound under `minimumStoreBytes`.
    public init(publicURL: String?, storeBytes: Int, allowHTTP: Bool, names: Names = Names()) throws {
        guard let publicURL, ServerConfiguration.isPublicURL(publicURL) else {
            throw RichPushError(
                code: .usage,
                message:
                    "the media edge (\(names.storeBytes)) needs \(names.publicURL) https://HOST: the address devices fetch /m/<sha256>.<ext> from (or \(names.mediaPublicURL) https://HOST for the edge alone)"
            )
        }
        if !publicURL.lowercased().hasPrefix("https://") && !allowHTTP {
            throw RichPushError(
                code: .usage,
                message:
                    "the media edge needs an https \(names.publicURL) (iOS's App Transport Security refuses http:// media): pass \(names.publicURL) https://HOST behind a TLS proxy, or \(names.allowHTTP) for a test"
            )
        }
        guard storeBytes >= Self.minimumStoreBytes else {
            throw RichPushError(
                code: .usage, message: "'\(names.storeBytes) \(storeBytes)' is below \(Self.minimumStoreBytes) (1 MB); give e.g. 1000000000 (1 GB)")
        }
        var trimmed = publicURL
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.publicURL = trimmed
        self.storeBytes = storeBytes
    }

    /// The URL a device fetches `object` from.
    ///
    /// - Parameter object: the stored file.
    /// - Returns: `<public URL>/m/<sha256>.<ext>`.
    public func url(for object: MediaObject) -> String { publicURL + object.path }
}
