import Foundation
import RichPushCore
import RichPushMedia

/// The media part of `richpush doctor --payload FILE --probe`: each media URL the service
/// extension would use, fetched once as the extension will fetch it (`MediaProbe`), as findings.
///
/// Codes: `media_refused` (error: the extension would not attach it; the probe's reason and what
/// to do), `media_slow` (warning: attached here, but slow enough to miss the extension's time on a
/// phone), `media_ok` (info: what was seen). Each message says reachable, type, size and the time
/// to first byte and total time against the extension's 30 s.
public enum MediaChecks {
    /// The time iOS gives a notification service extension, in ms (Apple: "about 30 seconds" for
    /// `didReceive(_:withContentHandler:)` before `serviceExtensionTimeWillExpire()`).
    public static let extensionBudgetMs = 30_000
    /// Time to first byte from which media is `media_slow`, in ms: 5 s, a sixth of the budget. A
    /// host this slow to answer the provider's well-connected machine is as slow for a phone,
    /// which then still has the body to download over its own (slower) link and the decode.
    public static let slowFirstByteMs = 5_000
    /// Total time from which media is `media_slow`, in ms: 10 s, a third of the budget. A phone on
    /// a weak cellular link commonly fetches three times slower than a server does, so 10 s here
    /// is about the whole 30 s there (article 004: Apple's most common cause is a large file on a
    /// slow connection).
    public static let slowTotalMs = 10_000

    /// Probes each distinct media URL the extension would use (the first media key path that
    /// holds media, as `RichPushPayloadLookup.media`, with the service extension's `RichPush.MediaKeyPaths`).
    ///
    /// - Parameters:
    ///   - data: the payload bytes (a payload that is not JSON gives no finding here: the lint says so).
    ///   - analysis: the analysed project, or `nil` for the default key paths.
    ///   - settings: the probe's settings (budget, allowed hosts, `http://` hosts).
    ///   - names: what the fixes call the tools and settings.
    /// - Returns: one finding per URL, target `payload`.
    public static func check(
        _ data: Data, analysis: ProjectAnalysis?, settings: MediaProbe.Settings, names: DoctorSettingNames = .library
    ) async -> [DoctorFinding] {
        let service = analysis?.targets.first { $0.kind == .notificationService }
        let keyPaths = PayloadChecks.mediaKeyPaths(service)
        guard let payload = try? RichPushJSONValue.parseStrictly(data) else { return [] }
        let media = RichPushPayloadLookup.media(in: payload, keyPaths: keyPaths)
        guard let path = media.path else { return [] }
        var seen: Set<String> = []
        var findings: [DoctorFinding] = []
        for url in media.urls where seen.insert(url).inserted {
            let result = await MediaProbe(settings: settings).probe(url)
            findings.append(finding(result, key: path.description, names: names))
        }
        return findings
    }

    /// The finding for one probe result.
    /// - Parameters:
    ///   - result: what the probe found.
    ///   - key: the key path that named the URL.
    ///   - names: what the fix calls the tools and settings.
    /// - Returns: `media_refused`, `media_slow` or `media_ok`.
    public static func finding(_ result: MediaProbeResult, key: String, names: DoctorSettingNames = .library) -> DoctorFinding {
        let seen = observed(result)
        if let reason = result.reason {
            return DoctorFinding(
                .mediaRefused, target: "payload", "\(key) \(result.url): \(reason.rawValue): \(result.message) (\(seen))",
                fix: fix(for: reason, names: names))
        }
        let ttfb = result.ttfbMs ?? 0
        if ttfb >= slowFirstByteMs || result.totalMs >= slowTotalMs {
            let what = ttfb >= slowFirstByteMs ? "the first byte took \(ttfb) ms" : "the download took \(result.totalMs) ms"
            return DoctorFinding(
                .mediaSlow, target: "payload",
                "\(key) \(result.url): \(what) from here, and a phone on a slow link is slower still (\(seen))",
                fix:
                    "serve a preview of at most 300 KB from a fast host or CDN (\(names.optimize)); warned from a first byte at \(slowFirstByteMs) ms or a total of \(slowTotalMs) ms"
            )
        }
        return DoctorFinding(.mediaOK, target: "payload", "\(key) \(result.url): the extension would attach it (\(seen))", fix: "")
    }

    /// What to do about a probe's reason.
    /// - Parameters:
    ///   - reason: the extension's reason code (or `blocked_address`).
    ///   - names: what the sentence calls the tools and settings.
    /// - Returns: one sentence.
    public static func fix(for reason: RichPushReasonCode, names: DoctorSettingNames = .library) -> String {
        switch reason {
        case .unsupportedFormat:
            return "send JPEG, PNG or GIF (\(names.optimize) makes a JPEG of at most 300 KB) and put that URL in the payload"
        case .tooLarge:
            return
                "send a smaller copy (\(names.optimize): a JPEG of at most 300 KB); Apple: images ≤ 10 MB, audio ≤ 5 MB, video ≤ 50 MB"
        case .timeout:
            return "serve a smaller file (a preview of at most 300 KB, article 004) from a faster host or CDN"
        case .httpStatus:
            return "fix the URL or the host: it must answer 200 with the file"
        case .insecureScheme:
            return "serve the media over https (or give the extension an ATS exception for the host, and \(names.allowHTTPHost))"
        case .notMedia:
            return "link the media file itself, not a page about it"
        case .corruptMedia:
            return "encode the file again (it is cut short or damaged), e.g. \(names.optimize)"
        case .redirectLimit:
            return "link the final URL (the extension follows at most 5 redirects)"
        case .network:
            return "check that the host resolves and answers https from the internet"
        case .badURL:
            return "write a full https URL with a host, percent-encoded"
        case .blockedAddress:
            return "use a public host; for a test or intranet host \(names.allowMediaHost)"
        default:
            return "fix the media URL as said"
        }
    }

    /// `reachable: HTTP 200, JPEG (public.jpeg) 900×600, 89696 bytes, ttfb 5 ms, total 20 ms of the extension's 30000 ms`.
    static func observed(_ result: MediaProbeResult) -> String {
        var parts: [String] = []
        if let status = result.httpStatus {
            parts.append("reachable: HTTP \(status)")
        } else {
            parts.append("not reachable")
        }
        if let format = result.format {
            parts.append("\(format.name) (\(format.uniformTypeIdentifier))" + (result.pixelSize.map { " \($0.width)×\($0.height)" } ?? ""))
        }
        if let bytes = result.bytes { parts.append("\(bytes) bytes") }
        parts.append("ttfb " + (result.ttfbMs.map { "\($0) ms" } ?? "none"))
        parts.append("total \(result.totalMs) ms of the extension's \(extensionBudgetMs) ms")
        return parts.joined(separator: ", ")
    }
}
