import RichPushCore

/// What a decoder holds in memory for an image it cannot stream, estimated from the header, so
/// that the optimiser refuses before decoding what would take more than
/// `MediaOptimizer.Settings.maximumDecodeBytes`.
///
/// libvips streams most inputs (a baseline JPEG decodes at 1/2…1/8 scale in libjpeg, a PNG or a
/// tiled TIFF line by line), but some decoders hold the whole image: libjpeg keeps every DCT
/// coefficient of a progressive JPEG, libpng the whole of an Adam7-interlaced PNG, libnsgif a
/// GIF's whole canvas, libheif a HEIC's or AVIF's whole picture, libjxl a JPEG XL's, libwebp a
/// lossless WebP's, libtiff a strip (which may be the whole image), ImageMagick a BMP in its
/// 16-bit pixel cache, librsvg an SVG's canvas and every picture it embeds. The bytes a pixel
/// costs each of them were measured (peak RSS of `richpush media optimize` on 36-megapixel
/// files, less the 40 MB the process holds before it decodes anything; BENCHMARKS.md,
/// "Media worker memory"), rounded up.
enum DecodeMemory {
    /// The estimate for one image: bytes, and what holds them (for the refusal).
    struct Estimate: Sendable, Equatable {
        /// Bytes held at once, estimated.
        var bytes: Int
        /// e.g. "a progressive JPEG is decoded whole (about 8 bytes a pixel)".
        var why: String
    }

    /// Bytes a pixel of an SVG costs: librsvg's canvas and each embedded picture decoded by
    /// gdk-pixbuf (4 bytes a pixel) then copied to a cairo surface (4 more).
    static let svgBytesPerPixel = 8

    /// The estimate for an image of `format` whose header is `info`, or `nil` when its decoder
    /// streams (baseline JPEG, non-interlaced PNG): those are bounded by the pixel bound alone.
    ///
    /// - Parameters:
    ///   - format: the sniffed format.
    ///   - info: libvips' reading of the header.
    /// - Returns: the estimate, or `nil`.
    static func estimate(_ format: RichPushMediaFormat, info: VipsLibrary.Info) -> Estimate? {
        let pixels = info.width.multipliedReportingOverflow(by: info.height)
        guard !pixels.overflow else { return Estimate(bytes: .max, why: "the image declares more pixels than can be counted") }
        let sample = max(1, info.bands) * max(1, info.sampleBytes)
        let perPixel: (tenths: Int, why: String)?
        switch format {
        case .jpeg where info.multiscan:
            // 2 bytes per coefficient per component, plus libjpeg's and libvips' buffers.
            perPixel = ((2 * max(1, info.bands) + 2) * 10, "a progressive JPEG is decoded whole")
        case .png where info.interlaced:
            perPixel = (sample * 14, "an interlaced PNG is decoded whole")
        case .gif:
            perPixel = (90, "a GIF is decoded whole")
        case .heic, .avif:
            perPixel = (100, "\(format.name) is decoded whole")
        case .jpegXL:
            perPixel = (80, "JPEG XL is decoded whole")
        case .webP:
            perPixel = (70, "a WebP is decoded whole when lossless")
        case .tiff:
            perPixel = (max(sample, 3) * 10, "a TIFF strip may hold the whole image")
        case .bmp:
            perPixel = (150, "ImageMagick holds a BMP whole in 16-bit samples")
        default:
            perPixel = nil
        }
        guard let perPixel else { return nil }
        let (bytes, overflow) = pixels.partialValue.multipliedReportingOverflow(by: perPixel.tenths)
        let rounded = "\(perPixel.tenths / 10)" + (perPixel.tenths % 10 == 0 ? "" : ".\(perPixel.tenths % 10)")
        return Estimate(bytes: overflow ? .max : bytes / 10, why: "\(perPixel.why) (about \(rounded) bytes a pixel)")
    }

    /// Megabytes, for messages: `448 MB`.
    static func megabytes(_ bytes: Int) -> String {
        bytes == .max ? "more than can be counted" : "\((bytes + 999_999) / 1_000_000) MB"
    }
}
