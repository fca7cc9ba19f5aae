import Foundation

/// Fetches one media URL to a file under every rule of issue 2, above any `MediaTransport`.
///
/// The rules, in the order they apply:
/// - https only, unless the host is in `allowedHTTPHosts` (App Transport Security's exception
///   model), for the first URL and every redirect hop → `insecure_scheme`;
/// - at most `maximumRedirects` redirects (followed here, never by the transport) → `redirect_limit`;
/// - one wall-clock deadline for connects, heads and every byte → `timeout`;
/// - a 2xx final status → else `http_status`;
/// - `Content-Length` over 50 MB (the largest limit) before any byte, then over the sniffed kind's
///   limit; streamed bytes over the limit when there is no `Content-Length` → `too_large`, at once;
/// - a body the server compressed (`Content-Encoding` other than `identity`, which every request
///   asks for) → `not_media`, before any byte is decoded or counted;
/// - the first bytes decide the type (`RichPushMediaFormat.sniff`) → `not_media` / `unsupported_format`
///   (Apple's table, plus `attachableFormats` opted into);
/// - the body goes to a fresh file with the right extension in a fresh per-notification folder;
///   on any failure the file and the folder are removed;
/// - credentials in a URL (`https://user:pass@host/…`, the first one or a redirect's) are never
///   sent (libcurl and URLSession would send them as Basic auth), unless `sendsURLCredentials`.
@_spi(RichPushInternal)
public struct MediaFetcher: Sendable {
    /// The most redirects followed for one media URL: 5 (issue 2; browsers allow 20, an extension
    /// has 30 s in all).
    public static let maximumRedirects = 5

    /// The HTTP layer.
    public var transport: any MediaTransport
    /// Hosts allowed over cleartext `http://` (ATS `NSExceptionDomains`), lower-cased.
    public var allowedHTTPHosts: Set<String>
    /// The formats fetched to a file: Apple's table by default (`RichPushConfiguration.attachableFormats`).
    public var attachableFormats: Set<RichPushMediaFormat>
    /// Whether user and password in a media URL are sent as HTTP Basic auth: `false` (default),
    /// they are removed from every request. A media host that needs a credential can opt in.
    public var sendsURLCredentials = false
    /// For provider-side tools that fetch an original to convert it (`richpush media optimize`):
    /// when set, every format `RichPushMediaFormat.sniff` knows is written to the file, up to this many
    /// bytes, instead of Apple's table and per-kind limits. `nil` (default, the extension): Apple's rules.
    public var sourceByteLimit: Int?

    /// Makes a fetcher.
    /// - Parameters:
    ///   - transport: the HTTP layer.
    ///   - allowedHTTPHosts: hosts allowed over `http://`.
    ///   - attachableFormats: the formats to fetch (default Apple's table).
    ///   - sendsURLCredentials: send a URL's user and password as Basic auth (default no).
    public init(
        transport: any MediaTransport, allowedHTTPHosts: Set<String>,
        attachableFormats: Set<RichPushMediaFormat> = Set(RichPushMediaFormat.appleAttachmentFormats),
        sendsURLCredentials: Bool = false
    ) {
        self.transport = transport
        self.allowedHTTPHosts = Set(allowedHTTPHosts.map { $0.lowercased() })
        self.attachableFormats = attachableFormats
        self.sendsURLCredentials = sendsURLCredentials
    }

    /// Fetches `url` into a file inside `folder`.
    ///
    /// - Parameters:
    ///   - url: a normalised http(s) URL (`MediaURL.normalize`).
    ///   - folder: a fresh per-notification folder; created on the first byte, removed on failure.
    ///   - deadline: the instant (continuous clock) after which nothing more is read.
    /// - Returns: the media written to disk.
    /// - Throws: `FetchFailure` with the reason code; nothing is left on disk.
    public func fetch(_ url: URL, into folder: URL, deadline: ContinuousClock.Instant) async throws(FetchFailure) -> RichPushDownloadedMedia {
        do {
            return try await fetchFollowingRedirects(url, into: folder, deadline: deadline)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Whether `url` may be fetched under App Transport Security.
    /// - Parameter url: an absolute URL.
    /// - Returns: `true` for https, or http to an allowed host.
    public func isAllowedByATS(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http": return allowedHTTPHosts.contains((url.host ?? "").lowercased())
        default: return false
        }
    }

    /// `url` without its user and password (`https://u:p@host/a` → `https://host/a`).
    /// - Parameter url: an absolute URL.
    /// - Returns: the URL as it is requested when credentials are not sent.
    public static func removingCredentials(_ url: URL) -> URL {
        guard url.user != nil || url.password != nil,
            var parts = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return url }
        parts.user = nil
        parts.password = nil
        return parts.url ?? url
    }

    private func fetchFollowingRedirects(_ start: URL, into folder: URL, deadline: ContinuousClock.Instant) async throws(FetchFailure)
        -> RichPushDownloadedMedia
    {
        var url = start
        var redirects = 0
        while true {
            guard isAllowedByATS(url) else {
                throw FetchFailure(
                    .insecureScheme,
                    "\(url.absoluteString) is cleartext http and \(url.host ?? "its host") has no ATS exception; use https or allow the host"
                )
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw FetchFailure(.timeout, "the deadline passed before the media arrived") }
            let receiver = DownloadReceiver(folder: folder, formats: attachableFormats, sourceByteLimit: sourceByteLimit)
            do {
                let sent = sendsURLCredentials ? url : Self.removingCredentials(url)
                try await transport.fetch(MediaRequest(url: sent, timeout: remaining), receiver: receiver)
            } catch {
                receiver.discard()
                let transportError = error as? MediaTransportError
                switch transportError?.code {
                case .timeout?, .cancelled?:
                    throw FetchFailure(
                        .timeout, "the deadline passed before the media arrived (\(transportError?.message ?? ""))", httpStatus: receiver.statusCode)
                default:
                    throw FetchFailure(
                        .network, "fetching \(url.absoluteString) failed: \(transportError?.message ?? String(describing: error))",
                        httpStatus: receiver.statusCode)
                }
            }
            if Task.isCancelled || ContinuousClock.now > deadline {
                receiver.discard()
                throw FetchFailure(.timeout, "the deadline passed before the media arrived")
            }
            switch receiver.verdict {
            case .redirect(let location):
                redirects += 1
                guard redirects <= Self.maximumRedirects else {
                    throw FetchFailure(.redirectLimit, "more than \(Self.maximumRedirects) redirects (last to \(location))", httpStatus: receiver.statusCode)
                }
                do {
                    url = try MediaURL.normalize(location, relativeTo: url)
                } catch {
                    throw FetchFailure(.badURL, "redirect to an unusable Location '\(location)'", httpStatus: receiver.statusCode)
                }
            case .failed(let failure):
                throw failure
            case .open:
                switch receiver.complete(url: url, redirects: redirects) {
                case .success(let media): return media
                case .failure(let failure): throw failure
                }
            }
        }
    }
}
