import Foundation
import RichPushCore
import RichPushExtension

/// Makes a push-ready copy of an image with libvips: a JPEG (sRGB, EXIF orientation applied,
/// metadata stripped) within a byte budget, for what iOS refuses or what is heavy to fetch.
///
/// What it does, by input:
/// - WebP (animated: the first frame), HEIC/HEIF, AVIF, TIFF, SVG, JPEG XL, BMP (only with
///   `allowsImageMagick`) → JPEG;
/// - JPEG, PNG, GIF over `maximumBytes` or over `maximumSide` on the long side → JPEG; within
///   both (and structurally sound, `RichPushMediaIntegrity`) → kept as they are;
/// - video and audio → never transcoded: kept when the extension would attach them, else the
///   extension's reason;
/// - more than `maximumInputPixels` declared (a decompression bomb) → `too_large` before any
///   pixel is decoded.
///
/// Shrink-on-load (`vips_thumbnail`): JPEG decodes at 1/2…1/8 scale in libjpeg, WebP and SVG
/// render at the target size, PNG and TIFF stream through a box filter, so a 50-megapixel photo
/// is never held whole. The quality is searched from 85 down to 35; when even 35 is over the
/// budget, the decoded copy is scaled down in memory (at least 64 px) and searched again.
public struct MediaOptimizer: Sendable {
    /// The budgets and the loader policy.
    public struct Settings: Sendable {
        /// The byte budget of the copy: 300 KB (article 004: "send a preview of at most 300 KB;
        /// the full image loads when the app opens", against Apple's most common extension timeout).
        public var maximumBytes = 300 * 1024
        /// The longest side of the copy in pixels: 2048 (twice a Pro Max's 1290-px-wide screen
        /// is more than a notification shows).
        public var maximumSide = 2048
        /// The most pixels an input may declare before anything is decoded: 100 MP (a 100-MP
        /// medium-format photo; a 48-MP phone photo passes, a 60000×60000 bomb does not).
        public var maximumInputPixels = 100_000_000
        /// Open ImageMagick's loader for BMP (libvips has no BMP loader of its own). Off by
        /// default: ImageMagick is an untrusted loader on hostile input. Process-wide (first use).
        public var allowsImageMagick = false

        /// Default settings.
        public init() {}
    }

    /// What the optimiser did.
    public enum Action: String, Sendable {
        /// The input was fine as it is and was copied unchanged.
        case kept
        /// A JPEG was made.
        case converted
    }

    /// The settings.
    public var settings: Settings

    /// JPEG qualities searched: 85 (libvips' and most CDNs' default for photos is 75–85) down to 35.
    static let qualities = 35...85
    /// The smallest long side made when the byte budget cannot be met at a larger one: 64 px.
    static let minimumSide = 64

    /// Makes an optimiser.
    /// - Parameter settings: budgets and loader policy.
    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Optimises `input` into `output`.
    ///
    /// - Parameters:
    ///   - input: a local file.
    ///   - output: where the copy goes (replaced).
    /// - Returns: what was done, the sizes and the format written.
    /// - Throws: `MediaOptimizeError` with the reason when no push-ready copy can be made.
    public func optimize(_ input: URL, to output: URL) throws(MediaOptimizeError) -> MediaOptimizeResult {
        let started = ContinuousClock.now
        let bytes = try Self.size(of: input)
        guard let format = try Self.sniff(input) else {
            throw MediaOptimizeError(.notMedia, "\(input.lastPathComponent) is not an image, video or sound RichPush knows (no known magic bytes)")
        }
        var result = MediaOptimizeResult(inputFormat: format, inputBytes: bytes, outputFormat: format, outputBytes: bytes)
        func finish() -> MediaOptimizeResult {
            result.elapsedMs = MediaProbe.milliseconds(ContinuousClock.now - started)
            return result
        }
        if let kind = format.kind, kind != .image {
            try keepAsIs(input, format: format, bytes: bytes, kind: kind, to: output)
            result.action = .kept
            return finish()
        }
        if format == .hlsPlaylist {
            throw MediaOptimizeError(.unsupportedFormat, "an HLS playlist is not an attachment and is not converted; link a file (MPEG-4 video)")
        }
        let imageMagick = try VipsLibrary.start(allowsImageMagick: settings.allowsImageMagick)
        if format == .bmp, !imageMagick {
            throw MediaOptimizeError(
                .unsupportedFormat,
                "BMP is read only through ImageMagick, an untrusted loader that is off on hostile input; send PNG or JPEG, or allow the ImageMagick loader",
                setting: "allowsImageMagick")
        }
        // A file that may be kept as it is gets the extension's structure check; one that is
        // converted is decoded by libvips with fail_on=error, which refuses it as surely.
        var integrity: RichPushMediaIntegrityError?
        if [.jpeg, .png, .gif].contains(format), bytes <= settings.maximumBytes {
            do { try RichPushMediaIntegrity.check(input, format: format) } catch {
                if error.code != .tooManyPixels { integrity = error }
            }
        }
        if let integrity {
            throw MediaOptimizeError(.corruptMedia, "\(integrity.message); nothing to convert")
        }
        let header = try VipsLibrary.header(input)
        result.inputSize = RichPushMediaIntegrity.PixelSize(width: header.width, height: header.height)
        let (pixels, overflow) = header.width.multipliedReportingOverflow(by: header.height)
        if format != .svg, overflow || pixels > settings.maximumInputPixels {
            throw MediaOptimizeError(
                .tooLarge,
                "the image declares \(header.width)×\(header.height) pixels, over the decoder's bound of \(settings.maximumInputPixels): refused before decoding (a decompression bomb, or too big to convert); raise the bound if it is neither",
                setting: "maximumInputPixels")
        }
        let longSide = max(header.width, header.height)
        if [.jpeg, .png, .gif].contains(format), bytes <= settings.maximumBytes, longSide <= settings.maximumSide {
            try Self.copy(input, to: output)
            result.action = .kept
            result.outputSize = result.inputSize
            return finish()
        }
        let side = min(settings.maximumSide, max(longSide, 1))
        guard
            let jpeg = try VipsLibrary.jpeg(
                input, side: side, qualities: Self.qualities, maximumBytes: settings.maximumBytes, minimumSide: Self.minimumSide)
        else {
            throw MediaOptimizeError(
                .tooLarge, "no JPEG of at least \(Self.minimumSide) px fits \(settings.maximumBytes) bytes; raise the byte budget", setting: "maximumBytes")
        }
        try Self.write(jpeg.data, to: output)
        result.action = .converted
        result.outputFormat = .jpeg
        result.outputBytes = jpeg.data.count
        result.outputSize = RichPushMediaIntegrity.PixelSize(width: jpeg.width, height: jpeg.height)
        result.quality = jpeg.quality
        return finish()
    }

    /// Video and sound: never transcoded; copied when the extension would attach them.
    private func keepAsIs(_ input: URL, format: RichPushMediaFormat, bytes: Int, kind: RichPushMediaKind, to output: URL) throws(MediaOptimizeError) {
        guard RichPushMediaFormat.appleAttachmentFormats.contains(format) else {
            throw MediaOptimizeError(
                .unsupportedFormat, "\(format.name) is not in Apple's attachment table and RichPush does not transcode \(kind.rawValue); send MPEG-4")
        }
        guard bytes <= kind.maximumBytes else {
            throw MediaOptimizeError(
                .tooLarge,
                "\(format.name) of \(bytes) bytes is over Apple's \(kind.rawValue) limit (\(kind.maximumBytes) bytes); RichPush does not transcode \(kind.rawValue): send a shorter or smaller file"
            )
        }
        do { try RichPushMediaIntegrity.check(input, format: format) } catch {
            throw MediaOptimizeError(.corruptMedia, error.message)
        }
        try Self.copy(input, to: output)
    }

    static func size(of file: URL) throws(MediaOptimizeError) -> Int {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            return (attributes[.size] as? NSNumber)?.intValue ?? 0
        } catch {
            throw MediaOptimizeError(.storage, "cannot read \(file.path): \(error.localizedDescription)")
        }
    }

    static func sniff(_ file: URL) throws(MediaOptimizeError) -> RichPushMediaFormat? {
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            let prefix = try handle.read(upToCount: RichPushMediaFormat.sniffLength) ?? Data()
            return RichPushMediaFormat.sniff(prefix)
        } catch {
            throw MediaOptimizeError(.storage, "cannot read \(file.path): \(error.localizedDescription)")
        }
    }

    static func copy(_ input: URL, to output: URL) throws(MediaOptimizeError) {
        guard input.standardizedFileURL != output.standardizedFileURL else { return }
        do {
            if FileManager.default.fileExists(atPath: output.path) { try FileManager.default.removeItem(at: output) }
            try FileManager.default.copyItem(at: input, to: output)
        } catch {
            throw MediaOptimizeError(.storage, "cannot write \(output.path): \(error.localizedDescription)")
        }
    }

    static func write(_ data: Data, to output: URL) throws(MediaOptimizeError) {
        do {
            try data.write(to: output, options: .atomic)
        } catch {
            throw MediaOptimizeError(.storage, "cannot write \(output.path): \(error.localizedDescription)")
        }
    }
}
