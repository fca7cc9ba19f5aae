import Foundation

/// A media file fetched, sniffed and written to its per-notification folder.
public struct RichPushDownloadedMedia: Sendable, Equatable {
    /// The file (fresh name, extension of the sniffed format), inside `folder`.
    public var file: URL
    /// The fresh per-notification folder that holds only this file.
    public var folder: URL
    /// The format read from the first bytes.
    public var format: RichPushMediaFormat
    /// The file size in bytes.
    public var bytes: Int
    /// The URL the bytes came from (after redirects).
    public var url: URL
    /// The final response's status code.
    public var httpStatus: Int
    /// How many redirects were followed (at most `MediaFetcher.maximumRedirects`).
    public var redirects: Int
    /// The final response's `Cache-Control` header, for the media cache.
    public var cacheControl: String?

    /// Makes a value (the fetcher does; tests and hosts may too).
    public init(file: URL, folder: URL, format: RichPushMediaFormat, bytes: Int, url: URL, httpStatus: Int, redirects: Int) {
        self.file = file
        self.folder = folder
        self.format = format
        self.bytes = bytes
        self.url = url
        self.httpStatus = httpStatus
        self.redirects = redirects
    }
}
