import Foundation
import RichPushCore
@_spi(RichPushInternal) import RichPushExtension

/// Fetches a media URL before the push is sent, exactly as RichPush's notification service
/// extension will on the device, and says what the extension would do with it.
///
/// No second implementation: the probe runs the extension's own `MediaURL.normalize`,
/// `MediaFetcher` (https/ATS policy on every hop, 5 redirects, `Accept-Encoding: identity`,
/// magic-byte sniffing against Apple's attachment table, Apple's per-kind size limits while
/// streaming, the deadline) and `RichPushMediaIntegrity.verify` (structure, pixel bound), over the
/// extension's libcurl transport. On top, for the provider only: no server-side request forgery
/// (`MediaAddressPolicy`, checked on every hop and on the address actually connected to).
public struct MediaProbe: Sendable {
    /// What the probe may do.
    public struct Settings: Sendable {
        /// The time budget for the whole fetch: default 25 s, the extension pipeline's own
        /// deadline (`RichPushConfiguration.deadline`; iOS gives the extension ~30 s).
        public var budget: Duration = .seconds(25)
        /// Hosts allowed over cleartext `http://` (App Transport Security exceptions), as in `simulate`.
        public var allowedHTTPHosts: Set<String> = []
        /// Which addresses may be connected to.
        public var addressPolicy = MediaAddressPolicy()
        /// libcurl `CURLOPT_RESOLVE` entries (`HOST:PORT:ADDRESS`), e.g. for tests.
        public var resolve: [String] = []
        /// Trust roots for https media instead of the system's (a PEM file: an intranet's or a
        /// test's private CA; `--media-ca-file`), or `nil`.
        public var caFile: String?
        /// The formats the extension attaches (default Apple's table).
        public var attachableFormats = Set(RichPushMediaFormat.appleAttachmentFormats)
        /// Whether URL credentials are sent as Basic auth (default no, as in the extension).
        public var sendsURLCredentials = false

        /// Default settings.
        public init() {}
    }

    /// The settings.
    public var settings: Settings

    /// Makes a probe.
    /// - Parameter settings: budget, ATS exceptions, address policy.
    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Probes one media URL as the extension would fetch it.
    ///
    /// - Parameter raw: the URL as written in the payload.
    /// - Returns: the extension's reason (`nil`: it would attach the media) and what was seen.
    public func probe(_ raw: String) async -> MediaProbeResult {
        let folder = Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        return await run(raw, into: folder, sourceByteLimit: nil).result
    }

    /// Probes one media URL and keeps what was fetched (the server's send-time check optimises
    /// the file it probed instead of fetching it again).
    ///
    /// - Parameters:
    ///   - raw: the URL as written in the payload.
    ///   - folder: a fresh folder for the file (the caller removes it).
    /// - Returns: the probe's result, and the file when the whole body was fetched.
    public func probe(_ raw: String, keepingIn folder: URL) async -> (result: MediaProbeResult, media: RichPushDownloadedMedia?) {
        await run(raw, into: folder, sourceByteLimit: nil)
    }

    /// Fetches an original for conversion (`richpush media optimize URL`): the same fetch and
    /// checks, but any format `RichPushMediaFormat.sniff` knows is kept, up to `byteLimit` bytes, so a
    /// WebP or a 12 MB JPEG can be converted.
    ///
    /// - Parameters:
    ///   - raw: the URL.
    ///   - folder: a fresh folder for the file (the caller removes it).
    ///   - byteLimit: the most bytes fetched.
    /// - Returns: the probe's result (reason set when the fetch failed) and the file, if fetched.
    public func fetchOriginal(_ raw: String, into folder: URL, byteLimit: Int) async -> (result: MediaProbeResult, media: RichPushDownloadedMedia?) {
        await run(raw, into: folder, sourceByteLimit: byteLimit)
    }

    private func run(_ raw: String, into folder: URL, sourceByteLimit: Int?) async -> (result: MediaProbeResult, media: RichPushDownloadedMedia?) {
        let started = ContinuousClock.now
        var result = MediaProbeResult(url: raw)
        func finish() -> MediaProbeResult {
            result.totalMs = Self.milliseconds(ContinuousClock.now - started)
            return result
        }
        let url: URL
        do {
            url = try MediaURL.normalize(raw)
        } catch {
            result.reason = .badURL
            result.message = (error as? FetchFailure)?.message ?? "the media URL cannot be used"
            return (finish(), nil)
        }
        let transport = ProbeTransport(policy: settings.addressPolicy, resolve: settings.resolve, caFile: settings.caFile)
        var fetcher = MediaFetcher(transport: transport, allowedHTTPHosts: settings.allowedHTTPHosts, attachableFormats: settings.attachableFormats)
        fetcher.sendsURLCredentials = settings.sendsURLCredentials
        fetcher.sourceByteLimit = sourceByteLimit
        let media: RichPushDownloadedMedia
        do throws(FetchFailure) {
            media = try await fetcher.fetch(url, into: folder, deadline: started + settings.budget)
        } catch {
            result.finalURL = transport.lastURL
            result.httpStatus = error.httpStatus
            result.format = error.format
            result.ttfbMs = transport.headAt.map { Self.milliseconds($0 - started) }
            if error.reason == .network, let refusal = transport.refusal {
                result.reason = .blockedAddress
                result.message = refusal
            } else {
                result.reason = error.reason
                result.message = error.message
            }
            return (finish(), nil)
        }
        result.finalURL = media.url
        result.httpStatus = media.httpStatus
        result.format = media.format
        result.bytes = media.bytes
        result.redirects = media.redirects
        result.ttfbMs = transport.headAt.map { Self.milliseconds($0 - started) }
        if sourceByteLimit != nil {
            result.message = "fetched \(media.format.name), \(media.bytes) bytes"
            return (finish(), media)
        }
        do throws(RichPushMediaValidationError) {
            result.pixelSize = try RichPushMediaIntegrity.verify(media)
            result.message = "the extension would attach \(media.format.name), \(media.bytes) bytes"
        } catch {
            result.reason = error.reason
            result.message = "the attachment would be refused: \(error.message)"
        }
        return (finish(), media)
    }

    /// A fresh folder under the temporary directory.
    ///
    /// - Returns: its URL (not created yet).
    public static func scratchFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("richpush-probe-\(UUID().uuidString.lowercased())", isDirectory: true)
    }

    static func milliseconds(_ d: Duration) -> Int {
        let (s, atto) = d.components
        return Int(s * 1000 + atto / 1_000_000_000_000_000)
    }
}

extension RichPushReasonCode {
    /// The provider refused to fetch the media URL: it (or a redirect) names or resolves to a
    /// loopback, private, link-local or unique-local address (server-side request forgery).
    /// Provider side only; the extension never reports it.
    public static let blockedAddress = RichPushReasonCode(rawValue: "blocked_address")
    /// The provider's conversion of the media (its media edge) ran past its time and was
    /// stopped (`MediaOptimizeError.Code.mediaTimeout`). Provider side only.
    public static let mediaTimeout = RichPushReasonCode(rawValue: "media_timeout")
}
