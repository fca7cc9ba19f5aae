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
/// Memory stays bounded (a 64 KB buffer) whatever the file's size; time is linear in it.
public enum MediaIntegrity {
    /// Checks a file whose bytes were recognised as `format`.
    ///
    /// - Parameters:
    ///   - file: the downloaded file.
    ///   - format: the format `MediaFormat.sniff` found.
    /// - Throws: `MediaIntegrityError` (`truncated`, `corrupt`, `unreadable`) saying what is wrong
    ///   and where; formats RichPush does not attach are not checked.
    public static func check(_ file: URL, format: MediaFormat) throws(MediaIntegrityError) {
        let reader = try MediaFileReader(url: file, formatName: format.name)
        guard reader.size > 0 else { throw MediaIntegrityError(.truncated, "\(format.name): the file is empty") }
        switch format {
        case .jpeg: try checkJPEG(reader)
        case .png: try checkPNG(reader)
        case .gif: try checkGIF(reader)
        case .mpeg4, .mpeg4Audio, .quickTime: try checkISOBaseMedia(reader)
        case .mp3: try checkMP3(reader)
        case .wav: try checkRIFF(reader, form: "WAVE")
        case .avi: try checkRIFF(reader, form: "AVI ")
        case .aiff: try checkAIFF(reader)
        case .mpeg, .mpeg2Video: try checkMPEG(reader)
        case .mpeg2TransportStream: try checkTransportStream(reader)
        default: return
        }
    }

    /// Checks a downloaded file as the pipeline does before its validation hook (the bridge's
    /// `UNNotificationAttachment`).
    ///
    /// - Parameter media: the downloaded file and the format its bytes show.
    /// - Throws: `MediaValidationError` with reason `corrupt_media` (`unsupported_format` when the
    ///   file cannot be read) and the check's message.
    public static func verify(_ media: DownloadedMedia) throws(MediaValidationError) {
        do {
            try check(media.file, format: media.format)
        } catch {
            throw MediaValidationError(reason: error.code == .unreadable ? .storage : .corruptMedia, message: error.message)
        }
    }
}
