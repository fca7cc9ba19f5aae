import Foundation
import RichPushCore
import RichPushExtension

/// What `MediaProbe` found for one media URL.
public struct MediaProbeResult: Sendable, Equatable {
    /// The URL as given.
    public var url: String
    /// The extension's reason code (e.g. `unsupported_format`, `too_large`, `timeout`), or
    /// `blocked_address` (provider only); `nil` when the extension would attach the media.
    public var reason: RichPushReasonCode?
    /// What happened, for people.
    public var message = ""
    /// The last URL requested (after redirects).
    public var finalURL: URL?
    /// The last response's HTTP status.
    public var httpStatus: Int?
    /// The format the first bytes showed.
    public var format: RichPushMediaFormat?
    /// Bytes received (when the whole body was read).
    public var bytes: Int?
    /// Redirects followed.
    public var redirects: Int?
    /// The pixel size an image declares (JPEG, PNG, GIF).
    public var pixelSize: RichPushMediaIntegrity.PixelSize?
    /// Time to the last response's head, in ms from the start.
    public var ttfbMs: Int?
    /// Total time, in ms.
    public var totalMs = 0

    /// Makes an empty result for `url`.
    /// - Parameter url: the URL as given.
    public init(url: String) {
        self.url = url
    }

    /// The JSON object `richpush media probe --json` prints: `reason` (null when the extension
    /// would attach it), `message`, `type` (UTType), `format`, `bytes`, `width`, `height`,
    /// `final_url`, `http_status`, `redirects`, `ttfb_ms`, `total_ms`.
    public var json: RichPushJSONValue {
        func number(_ v: Int?) -> RichPushJSONValue { v.map { .number(RichPushJSONNumber($0)) } ?? .null }
        return .object([
            "url": .string(url),
            "reason": reason.map { .string($0.rawValue) } ?? .null,
            "message": .string(message),
            "type": format.map { .string($0.uniformTypeIdentifier) } ?? .null,
            "format": format.map { .string($0.name) } ?? .null,
            "bytes": number(bytes),
            "width": number(pixelSize?.width),
            "height": number(pixelSize?.height),
            "final_url": finalURL.map { .string($0.absoluteString) } ?? .null,
            "http_status": number(httpStatus),
            "redirects": number(redirects),
            "ttfb_ms": number(ttfbMs),
            "total_ms": number(totalMs),
        ])
    }

    /// One line: `ok URL: JPEG 1200×800, 89696 bytes, 12 ms` or `REASON URL: message`.
    public var line: String {
        guard let reason else {
            let size = pixelSize.map { " \($0.width)×\($0.height)," } ?? ","
            return "ok \(url): \(format?.name ?? "media")\(size) \(bytes ?? 0) bytes, ttfb \(ttfbMs ?? 0) ms, total \(totalMs) ms"
        }
        return "\(reason.rawValue) \(url): \(message)"
    }
}
