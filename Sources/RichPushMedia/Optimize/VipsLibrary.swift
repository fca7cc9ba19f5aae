import CVips
import Foundation
@_spi(RichPushInternal) import RichPushCore

/// libvips for the optimiser: started once per process with the loader policy for hostile input
/// (see `richpush_vips_start` in `Sources/CVips/shim.h`).
///
/// The policy is process-wide (libvips' block list is global): the first `start` decides
/// whether ImageMagick's loader (BMP) and librsvg's (SVG) are open, and how many threads
/// libvips runs. A media worker process (`MediaWorker`) starts it with its pool's policy; in
/// any other process librsvg's loader stays open and `MediaOptimizer.Settings.allowsSVG`
/// decides per call.
enum VipsLibrary {
    /// The policy the first `start` set.
    struct Policy: Sendable, Equatable {
        /// ImageMagick's loader (BMP) is open.
        var imageMagick: Bool
        /// librsvg's loader (SVG) is open.
        var svg: Bool
    }

    private static let started = Locked<(ok: Bool, policy: Policy, error: String)?>(nil)

    /// Starts libvips (once).
    /// - Parameters:
    ///   - allowsImageMagick: open ImageMagick's loader (untrusted on hostile input).
    ///   - allowsSVG: leave librsvg's loader open (it aborts the process on some files and has no
    ///     time bound: a media worker whose pool does not allow SVG closes it).
    ///   - concurrency: libvips' worker threads (0: libvips' default, one per core).
    /// - Returns: the policy in force (the first call's choice).
    /// - Throws: `MediaOptimizeError` when libvips cannot start.
    static func start(allowsImageMagick: Bool, allowsSVG: Bool = true, concurrency: Int = 0) throws(MediaOptimizeError) -> Policy {
        let state = started.withLock { state -> (ok: Bool, policy: Policy, error: String) in
            if let state { return state }
            let ok = richpush_vips_start("richpush", allowsImageMagick ? 1 : 0, allowsSVG ? 1 : 0, Int32(clamping: concurrency)) == 0
            let made = (ok: ok, policy: Policy(imageMagick: allowsImageMagick, svg: allowsSVG), error: ok ? "" : takeError())
            state = made
            return made
        }
        guard state.ok else { throw MediaOptimizeError(.decoder, "libvips did not start: \(state.error)") }
        return state.policy
    }

    /// libvips' error text, cleared.
    static func takeError() -> String {
        let text = richpush_vips_error().map { String(cString: $0) } ?? ""
        richpush_vips_error_clear()
        return text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: "; ")
    }

    /// `VIPS_FAIL_ON_ERROR`: a truncated or damaged input is an error, not a grey half picture.
    static var failOnError: Int32 { Int32(VIPS_FAIL_ON_ERROR.rawValue) }

    /// What an image's header says, before any pixel is decoded.
    struct Info: Sendable, Equatable {
        /// Pixel width (at 72 dpi for SVG).
        var width: Int
        /// Pixel height.
        var height: Int
        /// Pages (frames).
        var pages: Int
        /// Bands (3 for RGB, 4 with alpha).
        var bands: Int
        /// Bytes per band sample (1: 8-bit, 2: 16-bit).
        var sampleBytes: Int
        /// A PNG with Adam7 interlace.
        var interlaced: Bool
        /// A progressive (multi-scan) JPEG.
        var multiscan: Bool
        /// The loader libvips chose, e.g. `jpegload`.
        var loader: String

        init(_ raw: richpush_vips_info) {
            width = Int(raw.width)
            height = Int(raw.height)
            pages = Int(raw.pages)
            bands = Int(raw.bands)
            sampleBytes = Int(raw.sample_bytes)
            interlaced = raw.interlaced != 0
            multiscan = raw.multiscan != 0
            var name = raw.loader
            loader = withUnsafeBytes(of: &name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
    }

    /// The header of `file`.
    static func header(_ file: URL) throws(MediaOptimizeError) -> Info {
        var raw = richpush_vips_info()
        guard richpush_vips_info_file(file.path, failOnError, &raw) == 0 else {
            throw MediaOptimizeError(.corruptMedia, "libvips cannot read the image's header: \(takeError())")
        }
        return Info(raw)
    }

    /// The header of an image in memory, or `nil` when libvips cannot read it.
    static func header(_ data: Data) -> Info? {
        var raw = richpush_vips_info()
        let ok = data.withUnsafeBytes { bytes in
            richpush_vips_info_buffer(bytes.baseAddress, bytes.count, &raw) == 0
        }
        guard ok else {
            _ = takeError()
            return nil
        }
        return Info(raw)
    }

    /// Encodes the first page of `file` (or of `data`, the file's bytes, when given: an SVG is
    /// rendered from memory so that librsvg loads no file it names) as the best JPEG within
    /// `maximumBytes`: shrunk on load to fit `side` px, then the quality searched (85 first; else 35, then from where the budget
    /// falls between their sizes, in steps of 5);
    /// when even the lowest quality is over the budget, the decoded image is scaled down in
    /// memory (by the square root of the byte ratio, never decoded again) down to `minimumSide`.
    /// - Returns: the JPEG bytes, the quality and pixel size used; `nil` when nothing fits.
    static func jpeg(
        _ file: URL, data: Data? = nil, side: Int, qualities: ClosedRange<Int>, maximumBytes: Int, minimumSide: Int
    ) throws(MediaOptimizeError) -> (data: Data, quality: Int, width: Int, height: Int)? {
        let decoded =
            data.map { bytes in bytes.withUnsafeBytes { richpush_vips_thumbnail_buffer($0.baseAddress, $0.count, Int32(side), failOnError) } }
            ?? richpush_vips_thumbnail(file.path, Int32(side), failOnError)
        guard var image = decoded else {
            throw MediaOptimizeError(.corruptMedia, "libvips could not decode the image (cut short or damaged): \(takeError())")
        }
        defer { richpush_vips_unref(image) }
        while true {
            let width = Int(richpush_vips_width(image))
            let height = Int(richpush_vips_height(image))
            let best = try encode(image, qualities: qualities, maximumBytes: maximumBytes)
            if let data = best.data { return (data, best.quality, width, height) }
            let longSide = max(width, height)
            guard longSide > minimumSide else { return nil }
            let ratio = (Double(maximumBytes) / Double(max(best.lowestBytes, 1))).squareRoot() * 0.95
            let scale = max(Double(minimumSide) / Double(longSide), min(ratio, 0.9))
            guard let smaller = richpush_vips_resize(image, scale) else {
                throw MediaOptimizeError(.decoder, "libvips could not resize the image: \(takeError())")
            }
            richpush_vips_unref(image)
            image = smaller
        }
    }

    /// The highest quality (step 5) whose JPEG fits, or `nil` data and the lowest quality's size.
    ///
    /// 85 first (most photos fit); else 35 (nothing fits when it does not); else the quality where
    /// the budget falls between those two sizes (linear in log bytes), rounded down to a step of
    /// 5, then one step up or down at a time until the highest that fits: usually 3–4 encodes in
    /// all, where halving the range took 5–6 (each a full JPEG encode of up to 2048 × 2048).
    private static func encode(
        _ image: UnsafeMutablePointer<VipsImage>, qualities: ClosedRange<Int>, maximumBytes: Int
    ) throws(MediaOptimizeError) -> (data: Data?, quality: Int, lowestBytes: Int) {
        func jpeg(_ quality: Int) throws(MediaOptimizeError) -> Data {
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            guard richpush_vips_jpeg(image, Int32(quality), &buffer, &length) == 0, let buffer else {
                throw MediaOptimizeError(.decoder, "libvips could not encode JPEG: \(takeError())")
            }
            defer { richpush_vips_free(buffer) }
            return Data(bytes: buffer, count: length)
        }
        let (lowest, highest) = (qualities.lowerBound, qualities.upperBound)
        let top = try jpeg(highest)
        if top.count <= maximumBytes { return (top, highest, top.count) }
        let bottom = try jpeg(lowest)
        guard bottom.count <= maximumBytes else { return (nil, lowest, bottom.count) }
        let span = log(Double(top.count)) - log(Double(bottom.count))
        let share = span > 0 ? (log(Double(maximumBytes)) - log(Double(bottom.count))) / span : 0
        var quality = min(highest - 5, max(lowest, lowest + Int(share * Double(highest - lowest)) / 5 * 5))
        var fits: (quality: Int, data: Data) = (lowest, bottom)
        if quality > lowest {
            let guess = try jpeg(quality)
            if guess.count <= maximumBytes {
                fits = (quality, guess)
            } else {
                // Over: down one step at a time (the next fits in most cases).
                quality -= 5
                while quality > lowest {
                    let data = try jpeg(quality)
                    if data.count <= maximumBytes {
                        fits = (quality, data)
                        break
                    }
                    quality -= 5
                }
                return (fits.data, fits.quality, bottom.count)
            }
        }
        // Fits: up one step at a time while the next still fits (85 did not).
        quality = fits.quality + 5
        while quality < highest {
            let data = try jpeg(quality)
            guard data.count <= maximumBytes else { break }
            fits = (quality, data)
            quality += 5
        }
        return (fits.data, fits.quality, bottom.count)
    }

    /// The most pixel memory libvips has held at once in this process, in bytes.
    static var memoryHighWater: Int { Int(richpush_vips_memory_highwater()) }
}
