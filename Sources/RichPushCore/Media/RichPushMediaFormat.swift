/// A media file format recognised from its first bytes (magic numbers).
///
/// The URL's extension and the `Content-Type` header are hints only: servers lie (a `.png` URL
/// with JPEG bytes, `application/octet-stream` carrying a PNG). RichPush names the file after the
/// format its bytes show and hands iOS that UTType as the type hint, so what iOS reads from the
/// hint is what the file holds.
public struct RichPushMediaFormat: Sendable, Hashable, CustomStringConvertible {
    /// The UTType identifier, e.g. `public.jpeg`.
    public let uniformTypeIdentifier: String
    /// The file name extension to write, without the dot, e.g. `jpg`.
    public let fileExtension: String
    /// The attachment kind (image, audio or video, each with Apple's size limit) of formats a
    /// notification could carry: Apple's table and the formats outside it that a configuration
    /// may opt into (`optInAttachmentFormats`); `nil` for media iOS never attaches (WebP, HEIC, SVG…).
    public let kind: RichPushMediaKind?
    /// A short human name, e.g. `JPEG`.
    public let name: String

    /// True when the format is in Apple's table of attachment types (`appleAttachmentFormats`).
    public var isAttachable: Bool { Self.appleAttachmentFormats.contains(self) }

    public var description: String { name }

    // MARK: Apple's table (UNNotificationAttachment, "Supported File Types")
    /// JPEG (`public.jpeg`, `.jpg`): an image iOS attaches.
    public static let jpeg = RichPushMediaFormat(uniformTypeIdentifier: "public.jpeg", fileExtension: "jpg", kind: .image, name: "JPEG")
    /// PNG (`public.png`, `.png`): an image iOS attaches.
    public static let png = RichPushMediaFormat(uniformTypeIdentifier: "public.png", fileExtension: "png", kind: .image, name: "PNG")
    /// GIF (`com.compuserve.gif`, `.gif`): an image iOS attaches, animated too.
    public static let gif = RichPushMediaFormat(uniformTypeIdentifier: "com.compuserve.gif", fileExtension: "gif", kind: .image, name: "GIF")
    /// MP3 (`public.mp3`, `.mp3`): audio iOS attaches.
    public static let mp3 = RichPushMediaFormat(uniformTypeIdentifier: "public.mp3", fileExtension: "mp3", kind: .audio, name: "MP3")
    /// MPEG-4 audio (`public.mpeg-4-audio`, `.m4a`): audio iOS attaches.
    public static let mpeg4Audio = RichPushMediaFormat(uniformTypeIdentifier: "public.mpeg-4-audio", fileExtension: "m4a", kind: .audio, name: "MPEG-4 audio")
    /// WAV (`com.microsoft.waveform-audio`, `.wav`): audio iOS attaches.
    public static let wav = RichPushMediaFormat(uniformTypeIdentifier: "com.microsoft.waveform-audio", fileExtension: "wav", kind: .audio, name: "WAV")
    /// AIFF (`public.aiff-audio`, `.aiff`): audio iOS attaches.
    public static let aiff = RichPushMediaFormat(uniformTypeIdentifier: "public.aiff-audio", fileExtension: "aiff", kind: .audio, name: "AIFF")
    /// MPEG-4 video (`public.mpeg-4`, `.mp4`): video iOS attaches.
    public static let mpeg4 = RichPushMediaFormat(uniformTypeIdentifier: "public.mpeg-4", fileExtension: "mp4", kind: .video, name: "MPEG-4 video")
    /// MPEG video (`public.mpeg`, `.mpg`): video iOS attaches.
    public static let mpeg = RichPushMediaFormat(uniformTypeIdentifier: "public.mpeg", fileExtension: "mpg", kind: .video, name: "MPEG video")
    /// MPEG-2 video (`public.mpeg-2-video`, `.m2v`): video iOS attaches.
    public static let mpeg2Video = RichPushMediaFormat(uniformTypeIdentifier: "public.mpeg-2-video", fileExtension: "m2v", kind: .video, name: "MPEG-2 video")
    /// AVI (`public.avi`, `.avi`): video iOS attaches.
    public static let avi = RichPushMediaFormat(uniformTypeIdentifier: "public.avi", fileExtension: "avi", kind: .video, name: "AVI")

    // MARK: Video outside Apple's table, attached only when a configuration opts in
    /// QuickTime movies (`.mov`): not in Apple's table; iOS may or may not attach one.
    public static let quickTime = RichPushMediaFormat(
        uniformTypeIdentifier: "com.apple.quicktime-movie", fileExtension: "mov", kind: .video, name: "QuickTime movie")
    /// MPEG-2 transport streams (`.ts`): not in Apple's table; iOS may or may not attach one.
    public static let mpeg2TransportStream = RichPushMediaFormat(
        uniformTypeIdentifier: "public.mpeg-2-transport-stream", fileExtension: "ts", kind: .video, name: "MPEG-2 transport stream")

    // MARK: Known media that iOS does not attach
    /// WebP (`org.webmproject.webp`): recognised, not attached by iOS (`unsupported_format`).
    public static let webP = RichPushMediaFormat(uniformTypeIdentifier: "org.webmproject.webp", fileExtension: "webp", kind: nil, name: "WebP")
    /// HEIC (`public.heic`): recognised, not attached by iOS (`unsupported_format`).
    public static let heic = RichPushMediaFormat(uniformTypeIdentifier: "public.heic", fileExtension: "heic", kind: nil, name: "HEIC")
    /// AVIF (`public.avif`): recognised, not attached by iOS (`unsupported_format`).
    public static let avif = RichPushMediaFormat(uniformTypeIdentifier: "public.avif", fileExtension: "avif", kind: nil, name: "AVIF")
    /// SVG (`public.svg-image`): recognised, not attached by iOS (`unsupported_format`).
    public static let svg = RichPushMediaFormat(uniformTypeIdentifier: "public.svg-image", fileExtension: "svg", kind: nil, name: "SVG")
    /// An HLS playlist (`public.m3u-playlist`, `.m3u8`): a list of streams, not a file iOS attaches.
    public static let hlsPlaylist = RichPushMediaFormat(uniformTypeIdentifier: "public.m3u-playlist", fileExtension: "m3u8", kind: nil, name: "HLS playlist")
    /// TIFF (`public.tiff`): recognised, not attached by iOS (`unsupported_format`).
    public static let tiff = RichPushMediaFormat(uniformTypeIdentifier: "public.tiff", fileExtension: "tiff", kind: nil, name: "TIFF")
    /// BMP (`com.microsoft.bmp`): recognised, not attached by iOS (`unsupported_format`).
    public static let bmp = RichPushMediaFormat(uniformTypeIdentifier: "com.microsoft.bmp", fileExtension: "bmp", kind: nil, name: "BMP")
    /// JPEG XL (ISO/IEC 18181): a bare codestream (`FF 0A`) or the `JXL ` box container.
    public static let jpegXL = RichPushMediaFormat(uniformTypeIdentifier: "public.jpeg-xl", fileExtension: "jxl", kind: nil, name: "JPEG XL")

    /// Apple's table of attachment types, exactly: images JPEG, GIF, PNG (≤ 10 MB); audio AIFF,
    /// WAV, MP3, MPEG-4 audio (≤ 5 MB); video MPEG, MPEG-2 video, MPEG-4, AVI (≤ 50 MB).
    ///
    /// - Important: Apple, `UNNotificationAttachment` "Supported File Types" (the UTTypes
    ///   `kUTTypeJPEG`, `kUTTypeGIF`, `kUTTypePNG`, `kUTTypeAudioInterchangeFileFormat`,
    ///   `kUTTypeWaveformAudio`, `kUTTypeMP3`, `kUTTypeMPEG4Audio`, `kUTTypeMPEG`,
    ///   `kUTTypeMPEG2Video`, `kUTTypeMPEG4`, `kUTTypeAVIMovie`).
    public static let appleAttachmentFormats: [RichPushMediaFormat] = [
        .jpeg, .gif, .png, .aiff, .wav, .mp3, .mpeg4Audio, .mpeg, .mpeg2Video, .mpeg4, .avi,
    ]

    /// Formats outside Apple's table that a configuration may opt into (QuickTime, MPEG-2
    /// transport streams): RichPush checks them like the others, but iOS decides.
    public static let optInAttachmentFormats: [RichPushMediaFormat] = [.quickTime, .mpeg2TransportStream]

    /// Every format RichPush knows, attachable or not.
    public static let known: [RichPushMediaFormat] =
        appleAttachmentFormats + optInAttachmentFormats + [.webP, .heic, .avif, .svg, .hlsPlaylist, .tiff, .bmp, .jpegXL]

    /// The format with this UTType identifier, among those RichPush knows.
    ///
    /// - Parameter identifier: e.g. `public.jpeg`.
    /// - Returns: the format, or `nil` when unknown.
    public static func forUniformTypeIdentifier(_ identifier: String) -> RichPushMediaFormat? {
        known.first { $0.uniformTypeIdentifier == identifier }
    }

    /// How many leading bytes `sniff` needs to decide (it works with fewer, less surely).
    public static let sniffLength = 1024

    /// Recognises a format from a file's first bytes.
    ///
    /// - Parameter bytes: the first bytes of the file (`sniffLength` is enough).
    /// - Returns: the format, or `nil` when the bytes are not media (HTML, JSON, text, empty).
    public static func sniff<Bytes: Collection>(_ bytes: Bytes) -> RichPushMediaFormat? where Bytes.Element == UInt8 {
        let b = Array(bytes.prefix(sniffLength))
        func at(_ offset: Int, _ ascii: String) -> Bool {
            let pattern = Array(ascii.utf8)
            guard b.count >= offset + pattern.count else { return false }
            return Array(b[offset..<offset + pattern.count]) == pattern
        }
        func starts(_ magic: [UInt8]) -> Bool { b.count >= magic.count && Array(b[0..<magic.count]) == magic }

        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if at(0, "GIF87a") || at(0, "GIF89a") { return .gif }
        if at(0, "RIFF") {
            if at(8, "WAVE") { return .wav }
            if at(8, "AVI ") { return .avi }
            if at(8, "WEBP") { return .webP }
            return nil
        }
        if at(0, "FORM"), at(8, "AIFF") || at(8, "AIFC") { return .aiff }
        if at(4, "ftyp") { return isoBaseMediaFormat(brand: b.count >= 12 ? Array(b[8..<12]) : []) }
        if at(4, "moov") || at(4, "mdat") || at(4, "wide") || at(4, "free") || at(4, "pnot") { return .quickTime }
        if starts([0xFF, 0x0A]) || starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jpegXL }
        if at(0, "ID3") { return .mp3 }
        // MPEG audio frame sync: 11 set bits, then version != reserved and layer III.
        if b.count >= 2, b[0] == 0xFF, b[1] & 0xE0 == 0xE0, b[1] & 0x18 != 0x08, b[1] & 0x06 == 0x02 { return .mp3 }
        if starts([0x00, 0x00, 0x01, 0xBA]) { return .mpeg }
        if starts([0x00, 0x00, 0x01, 0xB3]) { return hasMPEG2SequenceExtension(b) ? .mpeg2Video : .mpeg }
        if b.count > 188, b[0] == 0x47, b[188] == 0x47 { return .mpeg2TransportStream }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if at(0, "BM"), b.count >= 14 { return .bmp }
        return sniffText(b)
    }

    private static func isoBaseMediaFormat(brand: [UInt8]) -> RichPushMediaFormat {
        let name = String(decoding: brand, as: UTF8.self)
        switch name {
        case "M4A ", "M4B ", "M4P ", "F4A ": return .mpeg4Audio
        case "qt  ": return .quickTime
        case "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1": return .heic
        case "avif", "avis": return .avif
        default: return .mpeg4
        }
    }

    /// A video elementary stream is MPEG-2 when a sequence extension (start code `00 00 01 B5`,
    /// extension id 1) follows its sequence header; MPEG-1 streams have none (ISO/IEC 13818-2 §6.2.2.3).
    private static func hasMPEG2SequenceExtension(_ b: [UInt8]) -> Bool {
        guard b.count >= 8 else { return false }
        for i in 4..<(b.count - 4) where b[i] == 0x00 && b[i + 1] == 0x00 && b[i + 2] == 0x01 && b[i + 3] == 0xB5 {
            return b[i + 4] >> 4 == 1
        }
        return false
    }

    /// SVG and HLS are text: skip a BOM and leading whitespace, then look at the start.
    private static func sniffText(_ b: [UInt8]) -> RichPushMediaFormat? {
        var start = 0
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { start = 3 }
        while start < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[start]) { start += 1 }
        let text = String(decoding: b[start...], as: UTF8.self)
        if text.hasPrefix("#EXTM3U") { return .hlsPlaylist }
        let lower = text.lowercased()
        if lower.hasPrefix("<svg") { return .svg }
        if lower.hasPrefix("<?xml") || lower.hasPrefix("<!--") || lower.hasPrefix("<!doctype svg") {
            if lower.contains("<svg") { return .svg }
        }
        return nil
    }
}
