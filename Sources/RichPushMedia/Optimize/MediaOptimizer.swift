import Foundation
import RichPushCore
import RichPushExtension

/// Makes a push-ready copy of an image with libvips: a JPEG (sRGB, EXIF orientation applied,
/// metadata stripped) within a byte budget, for what iOS refuses or what is heavy to fetch.
///
/// What it does, by input:
/// - WebP (animated: the first frame), HEIC/HEIF, AVIF, TIFF, JPEG XL, SVG (only with
///   `allowsSVG`), BMP (only with `allowsImageMagick`) → JPEG;
/// - JPEG, PNG, GIF over `maximumBytes` or over `maximumSide` on the long side → JPEG; within
///   both (and structurally sound, `RichPushMediaIntegrity`) → kept as they are;
/// - video and audio → never transcoded: kept when the extension would attach them, else the
///   extension's reason;
/// - more than `maximumInputPixels` declared (a decompression bomb), or a format its decoder
///   holds whole (progressive JPEG, interlaced PNG, GIF, HEIC, AVIF, JPEG XL, WebP, TIFF, BMP)
///   whose estimate is over `maximumDecodeBytes` (`DecodeMemory`) → `too_large` before any
///   pixel is decoded; an SVG counts the pixels it renders and those it embeds.
///
/// This runs libvips in the calling process: a decoder that aborts (librsvg 2.54 on some SVG
/// filters) takes the process with it, and nothing bounds the time. On hostile input use
/// `MediaWorkerPool`, which runs it in worker processes under memory, CPU and time bounds.
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
        /// The most bytes a decoder that holds the whole image may need, estimated from the
        /// header (`DecodeMemory`: e.g. 8 bytes a pixel for a progressive JPEG, 10 for HEIC):
        /// 400 MB, so that a conversion peaks under 450 MB (BENCHMARKS.md, "Media worker
        /// memory"); a 48-MP progressive JPEG passes, a 60-MP one does not.
        public var maximumDecodeBytes = 400_000_000
        /// Open ImageMagick's loader for BMP (libvips has no BMP loader of its own). Off by
        /// default: ImageMagick is an untrusted loader on hostile input. Process-wide (first use).
        public var allowsImageMagick = false
        /// Rasterise SVG (librsvg). Off by default: Debian 12's librsvg 2.54 aborts the process
        /// on some filters (an `feConvolveMatrix` of order 25 or more) and rendering has no time
        /// bound of its own. When on, the pixels it renders and those it embeds count against
        /// `maximumInputPixels` and `maximumDecodeBytes`. Per call (a media worker has its pool's).
        public var allowsSVG = false

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
        if format == .svg, !settings.allowsSVG {
            throw MediaOptimizeError(
                .unsupportedFormat,
                "SVG is rasterised only when allowed: librsvg can take the process down or run for minutes on hostile input; send PNG or JPEG, or allow SVG",
                setting: "allowsSVG")
        }
        let policy = try VipsLibrary.start(allowsImageMagick: settings.allowsImageMagick)
        if format == .bmp, !policy.imageMagick {
            throw MediaOptimizeError(
                .unsupportedFormat,
                "BMP is read only through ImageMagick, an untrusted loader that is off on hostile input; send PNG or JPEG, or allow the ImageMagick loader",
                setting: "allowsImageMagick")
        }
        if format == .svg, !policy.svg {
            throw MediaOptimizeError(
                .unsupportedFormat, "SVG is not rasterised: this media worker was started with SVG off; send PNG or JPEG", setting: "allowsSVG")
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
        // An SVG is read and rendered from memory: librsvg then has no base file and loads
        // nothing the document names.
        let svg = format == .svg ? try Self.read(input) : nil
        let header: VipsLibrary.Info
        if let svg {
            guard let info = VipsLibrary.header(svg) else {
                throw MediaOptimizeError(.corruptMedia, "librsvg cannot read the SVG document")
            }
            header = info
        } else {
            header = try VipsLibrary.header(input)
        }
        if let expected = Self.loaders[format], !header.loader.hasPrefix(expected) {
            throw MediaOptimizeError(
                .unsupportedFormat,
                "the file starts as \(format.name) but libvips reads it with \(header.loader.isEmpty ? "another loader" : header.loader); nothing was converted"
            )
        }
        result.inputSize = RichPushMediaIntegrity.PixelSize(width: header.width, height: header.height)
        let side = min(settings.maximumSide, max(max(header.width, header.height), 1))
        if let svg {
            try checkSVG(svg, header: header, side: side)
        } else {
            try checkPixels(format, header: header)
        }
        let longSide = max(header.width, header.height)
        if [.jpeg, .png, .gif].contains(format), bytes <= settings.maximumBytes, longSide <= settings.maximumSide {
            try Self.copy(input, to: output)
            result.action = .kept
            result.outputSize = result.inputSize
            return finish()
        }
        guard
            let jpeg = try VipsLibrary.jpeg(
                input, data: svg, side: side, qualities: Self.qualities, maximumBytes: settings.maximumBytes, minimumSide: Self.minimumSide)
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

    /// The loader each converted format must be read with (a file whose magic bytes say one
    /// format must not reach another loader, above all not ImageMagick's or librsvg's).
    static let loaders: [RichPushMediaFormat: String] = [
        .jpeg: "jpegload", .png: "pngload", .gif: "gifload", .webP: "webpload", .heic: "heifload", .avif: "heifload", .tiff: "tiffload",
        .jpegXL: "jxlload", .svg: "svgload", .bmp: "magickload",
    ]

    /// The pixel bound and, for a decoder that holds the whole image, the memory bound.
    private func checkPixels(_ format: RichPushMediaFormat, header: VipsLibrary.Info) throws(MediaOptimizeError) {
        let (pixels, overflow) = header.width.multipliedReportingOverflow(by: header.height)
        if overflow || pixels > settings.maximumInputPixels {
            throw MediaOptimizeError(
                .tooLarge,
                "the image declares \(header.width)×\(header.height) pixels, over the decoder's bound of \(settings.maximumInputPixels): refused before decoding (a decompression bomb, or too big to convert); raise the bound if it is neither",
                setting: "maximumInputPixels")
        }
        if let estimate = DecodeMemory.estimate(format, info: header), estimate.bytes > settings.maximumDecodeBytes {
            throw MediaOptimizeError(
                .tooLarge,
                "\(estimate.why): \(header.width)×\(header.height) pixels would hold about \(DecodeMemory.megabytes(estimate.bytes)), over the decoder's memory bound of \(DecodeMemory.megabytes(settings.maximumDecodeBytes)); send a smaller image (or a baseline JPEG), or raise the bound",
                setting: "maximumDecodeBytes")
        }
    }

    /// An SVG's rendered pixels (fitted into `side`) and embedded pictures against the bounds.
    private func checkSVG(_ svg: Data, header: VipsLibrary.Info, side: Int) throws(MediaOptimizeError) {
        let embedded = try SVGScan.embedded(in: svg)
        let long = max(header.width, header.height, 1)
        let scale = min(1, Double(side) / Double(long))
        let rendered = max(1, Int((Double(header.width) * scale).rounded(.up))) * max(1, Int((Double(header.height) * scale).rounded(.up)))
        var pixels = rendered
        for picture in embedded {
            let (area, overflow) = picture.width.multipliedReportingOverflow(by: picture.height)
            let (sum, over) = pixels.addingReportingOverflow(area)
            pixels = overflow || over ? .max : sum
        }
        let (bytes, overflow) = pixels.multipliedReportingOverflow(by: DecodeMemory.svgBytesPerPixel)
        let what =
            "the SVG renders \(rendered) pixels"
            + (embedded.isEmpty ? "" : " and embeds \(embedded.count) picture(s) of \(pixels == .max ? "uncountable" : String(pixels - rendered)) pixels")
        if pixels > settings.maximumInputPixels {
            throw MediaOptimizeError(
                .tooLarge, "\(what), over the decoder's bound of \(settings.maximumInputPixels) pixels; embed smaller pictures", setting: "maximumInputPixels")
        }
        if overflow || bytes > settings.maximumDecodeBytes {
            throw MediaOptimizeError(
                .tooLarge,
                "\(what) (about \(DecodeMemory.svgBytesPerPixel) bytes a pixel): about \(DecodeMemory.megabytes(overflow ? .max : bytes)), over the decoder's memory bound of \(DecodeMemory.megabytes(settings.maximumDecodeBytes)); embed smaller pictures",
                setting: "maximumDecodeBytes")
        }
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

    static func read(_ file: URL) throws(MediaOptimizeError) -> Data {
        do {
            return try Data(contentsOf: file)
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
