import Foundation
import RichPushCore
import RichPushExtension
import RichPushMedia

/// One media URL of a push, probed as the extension will fetch it and, in `optimize` mode,
/// turned into a push-optimised JPEG when iOS would refuse the original or it is heavy.
struct MediaExamination: Sendable {
    /// The URL as the payload gave it.
    var url: String
    /// What the probe found.
    var probe: MediaProbeResult
    /// The optimised copy to serve from the edge, if one was made.
    var optimized: MediaObject?
    /// What the optimiser reported for it.
    var optimizeResult: MediaOptimizeResult?
    /// Why the extension would not attach this URL (and no copy fixed it), with what was wrong;
    /// `nil` when it goes out (as it is, or as the edge's copy).
    var failure: (reason: String, message: String)?
    /// Time spent working on this URL (probe, fetching the original again, optimising), in ms:
    /// the wait for a free media worker is not in it (`queueMs`).
    var elapsedMs = 0
    /// Time this URL's conversion waited for a free media worker (and its start), in ms.
    var queueMs = 0

    /// Probe reasons an optimised copy can cure: a format iOS refuses (WebP, HEIC, AVIF, TIFF,
    /// SVG, JPEG XL, BMP), an image over Apple's 10 MB or over the extension's pixel bound, and
    /// a structure check the decoder decides again (`fail_on=error`: a cut-short file stays refused).
    static let curable: Set<RichPushReasonCode> = [.unsupportedFormat, .tooLarge, .corruptMedia]

    /// Probes `url` (and, with `optimizing`, makes the edge's copy).
    ///
    /// - Parameters:
    ///   - url: the media URL.
    ///   - settings: the probe's settings.
    ///   - workers: the media workers copies are made in; `nil`: no copies (`"media": "check"`).
    ///   - nowMs: the time the copy is stored at, ms since 1970.
    /// - Returns: what was found and made.
    static func examine(_ url: String, settings: MediaCheckSettings, workers: MediaWorkerPool?, nowMs: Int) async -> MediaExamination {
        let started = ContinuousClock.now
        var examination = await run(url, settings: settings, workers: workers, nowMs: nowMs)
        examination.elapsedMs = max(0, milliseconds(ContinuousClock.now - started) - examination.queueMs)
        return examination
    }

    private static func run(_ url: String, settings: MediaCheckSettings, workers: MediaWorkerPool?, nowMs: Int) async -> MediaExamination {
        let folder = MediaProbe.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let probe = MediaProbe(settings: settings.probe)
        let (result, media) = await probe.probe(url, keepingIn: folder)
        var examination = MediaExamination(url: url, probe: result)
        examination.failure = result.reason.map { ($0.rawValue, result.message) }
        guard let workers, let format = result.format, isImage(format) else { return examination }

        let input: URL
        if result.reason == nil {
            // Attachable as it is: a copy only when it is over the byte or pixel budget.
            guard let media, isHeavy(result, budgets: settings.optimizer) else { return examination }
            input = media.file
        } else if let reason = result.reason, curable.contains(reason) {
            // The probe stopped at what the extension refuses; fetch the original whole (up to 50 MB).
            let fetched = await probe.fetchOriginal(url, into: folder.appendingPathComponent("original"), byteLimit: RichPushMediaKind.largestMaximumBytes)
            guard let original = fetched.media else {
                examination.failure = ((fetched.result.reason ?? reason).rawValue, fetched.result.message)
                return examination
            }
            if examination.probe.bytes == nil { examination.probe.bytes = original.bytes }
            input = original.file
        } else {
            return examination
        }

        let output = folder.appendingPathComponent("optimized.jpg")
        let made: Result<MediaOptimizeResult, MediaOptimizeError>
        do throws(MediaOptimizeError) {
            let conversion = try await workers.optimize(input, to: output)
            examination.queueMs = conversion.queueMs
            made = .success(conversion.result)
        } catch {
            made = .failure(error)
        }
        switch made {
        case .success(let done) where done.action == .converted:
            guard let bytes = try? Data(contentsOf: output) else {
                if result.reason != nil { examination.failure = (MediaOptimizeError.Code.storage.rawValue, "the optimised copy could not be read back") }
                return examination
            }
            examination.optimized = MediaObject(
                bytes: bytes, fileExtension: done.outputFormat.fileExtension, contentType: "image/jpeg", storedAtMs: nowMs)
            examination.optimizeResult = done
            examination.failure = nil
        case .success:
            // Kept as it is: the original goes out (refused by the probe → stays refused).
            break
        case .failure(let error):
            // An original the extension attaches goes out as it is when no copy can be made.
            if result.reason != nil { examination.failure = (error.code.rawValue, "no push-ready copy can be made: \(error.message)") }
        }
        return examination
    }

    /// Whether the optimiser reads `format`: images, and the image formats iOS refuses (no kind).
    static func isImage(_ format: RichPushMediaFormat) -> Bool {
        format.kind == .image || (format.kind == nil && format != .hlsPlaylist)
    }

    /// Whether an attachable image is over the optimiser's byte budget or pixel budget (or its
    /// pixel size is not known, and the optimiser decides).
    static func isHeavy(_ result: MediaProbeResult, budgets: MediaOptimizer.Settings) -> Bool {
        guard let size = result.pixelSize else { return true }
        return (result.bytes ?? 0) > budgets.maximumBytes || max(size.width, size.height) > budgets.maximumSide
    }

    static func milliseconds(_ d: Duration) -> Int {
        let (s, atto) = d.components
        return Int(s * 1000 + atto / 1_000_000_000_000_000)
    }
}
