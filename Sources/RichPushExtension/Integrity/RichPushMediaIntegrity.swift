import Foundation

/// RichPush's own check of a downloaded file before it is handed to iOS: it decodes enough of each
/// format to refuse a file that is cut short or broken, with a reason.
///
/// iOS's `UNNotificationAttachment(identifier:url:options:)` checks only that the file is readable
/// and that its type (from the type hint or the extension) is supported; the content is validated
/// after the extension has handed the notification over, when nothing can be reported any more. So
/// RichPush checks the structure first:
/// - JPEG: SOI, every segment's length, a frame header (SOFn) with non-zero width, height and 1…4
///   components, a scan (SOS), and the end-of-image marker (EOI) after the entropy-coded data;
/// - PNG: the signature, `IHDR` first (non-zero size, a valid bit depth and colour type), every
///   chunk's CRC-32, at least one `IDAT`, and `IEND`;
/// - GIF: the header and logical screen (non-zero size), every block and sub-block up to the
///   trailer, at least one image;
/// - MPEG-4 video and audio, QuickTime: every top-level box inside the file, and a complete `moov`
///   (the movie's index) holding `mvhd` and at least one `trak`;
/// - MP3: after any ID3v2 tag, an MPEG audio Layer III frame header, and the next frame's sync
///   where the first frame ends;
/// - WAV, AVI (RIFF) and AIFF: the container size against the file's, every chunk inside it, a
///   valid `fmt ` / `COMM` and a complete `data` / `SSND` (AVI: `hdrl` with `avih`, and `movi`);
/// - MPEG and MPEG-2 video: a pack header or a sequence header with non-zero picture size and
///   valid aspect-ratio and frame-rate codes; MPEG-2 transport streams: the sync byte of every
///   188-byte packet.
///
/// Images whose header declares more than `maximumPixels` are refused (`tooManyPixels`, reported
/// as `too_large`) as soon as the header is read: a 545-byte PNG may declare 60000×60000 pixels
/// (14.4 GB decoded), which iOS would try to decode when it shows the notification.
///
/// Memory stays bounded (a 64 KB buffer) whatever the file's size; time is linear in it.
public enum RichPushMediaIntegrity {
    /// The most pixels an image attachment may declare: 8192 × 8192 = 67,108,864.
    ///
    /// Why this number: decoded at 4 bytes a pixel it is 256 MB, already ten times the ~24 MB a
    /// notification extension may hold (and what the system's notification UI decodes too);
    /// 8192 px is the largest texture side of A8-and-older iPhone GPUs; and it keeps every
    /// camera photo (an iPhone's 48 MP main camera writes 8064 × 6048 = 48.8 MP). Larger images
    /// are what `richpush media optimize` is for (a JPEG ≤ 2048 px on the long side).
    public static let maximumPixels = 8192 * 8192

    /// The pixel size an image declares in its header.
    public struct PixelSize: Sendable, Equatable {
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Makes a size.
        /// - Parameters:
        ///   - width: pixels.
        ///   - height: pixels.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// Checks a file whose bytes were recognised as `format`.
    ///
    /// - Parameters:
    ///   - file: the downloaded file.
    ///   - format: the format `RichPushMediaFormat.sniff` found.
    /// - Returns: the declared pixel size of a JPEG, PNG or GIF; `nil` for other formats.
    /// - Throws: `RichPushMediaIntegrityError` (`truncated`, `corrupt`, `unreadable`, `tooManyPixels`)
    ///   saying what is wrong and where; formats RichPush does not attach are not checked.
    @discardableResult
    public static func check(_ file: URL, format: RichPushMediaFormat) throws(RichPushMediaIntegrityError) -> PixelSize? {
        let reader = try MediaFileReader(url: file, formatName: format.name)
        guard reader.size > 0 else { throw RichPushMediaIntegrityError(.truncated, "\(format.name): the file is empty") }
        switch format {
        case .jpeg: return try checkJPEG(reader)
        case .png: return try checkPNG(reader)
        case .gif: return try checkGIF(reader)
        case .mpeg4, .mpeg4Audio, .quickTime: try checkISOBaseMedia(reader)
        case .mp3: try checkMP3(reader)
        case .wav: try checkRIFF(reader, form: "WAVE")
        case .avi: try checkRIFF(reader, form: "AVI ")
        case .aiff: try checkAIFF(reader)
        case .mpeg, .mpeg2Video: try checkMPEG(reader)
        case .mpeg2TransportStream: try checkTransportStream(reader)
        default: break
        }
        return nil
    }

    /// Refuses a declared size over `maximumPixels` (called as soon as a header is read).
    static func checkPixelCount(_ width: Int, _ height: Int, _ r: MediaFileReader) throws(RichPushMediaIntegrityError) -> PixelSize {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maximumPixels else {
            throw RichPushMediaIntegrityError(
                .tooManyPixels,
                "\(r.formatName): the image declares \(width)×\(height) pixels, over RichPush's bound of \(maximumPixels) (8192×8192; decoded at 4 bytes a pixel that is 256 MB, beyond a notification's memory); resize it (richpush media optimize)"
            )
        }
        return PixelSize(width: width, height: height)
    }

    /// Checks a downloaded file as the pipeline does before its validation hook (the bridge's
    /// `UNNotificationAttachment`).
    ///
    /// - Parameter media: the downloaded file and the format its bytes show.
    /// - Returns: the declared pixel size (images), as `check` returns it.
    /// - Throws: `RichPushMediaValidationError` with reason `corrupt_media`, `too_large` for an image
    ///   declaring more than `maximumPixels`, `storage` when the file cannot be read; and the
    ///   check's message.
    @discardableResult
    public static func verify(_ media: RichPushDownloadedMedia) throws(RichPushMediaValidationError) -> PixelSize? {
        do {
            return try check(media.file, format: media.format)
        } catch {
            let reason: RichPushReasonCode
            switch error.code {
            case .unreadable: reason = .storage
            case .tooManyPixels: reason = .tooLarge
            default: reason = .corruptMedia
            }
            throw RichPushMediaValidationError(reason: reason, message: error.message)
        }
    }
}
