import Foundation

/// Fetches an avatar under the media rules and makes it ready to hand over as data.
///
/// The rules: the media fetcher's (https or an ATS exception, at most 5 redirects, the
/// pipeline's one deadline, a 2xx answer, `Accept-Encoding: identity`, the type from the first
/// bytes) with Apple's image limit (10 MB); then an image only (an HTML page is `not_media`, SVG
/// or a sound `unsupported_format`); JPEG, PNG and GIF pass `RichPushMediaIntegrity` (structure, at most
/// 8192 × 8192 pixels declared); what iOS draws as it is (JPEG, PNG, GIF of at most
/// `maximumDataBytes`) is read into memory, anything else is converted (`AvatarConverter`) to at
/// most `maximumSide` pixels, or refused when there is no converter.
struct AvatarFetcher: Sendable {
    /// The most bytes handed over as data without converting: 1 MB (our bound: the data goes to
    /// the system with the donation, in memory, in an extension of ~24 MB).
    static let maximumDataBytes = 1_000_000
    /// The longest side of a converted avatar: 512 px (our bound: iOS draws a communication
    /// notification's avatar at about 40 pt, 120 px on a 3× screen, and larger in the expanded view).
    static let maximumSide = 512
    /// The formats drawn as they are.
    static let drawnAsIs: Set<RichPushMediaFormat> = [.jpeg, .png, .gif]
    /// The formats converted when a converter is there.
    static let convertible: Set<RichPushMediaFormat> = [.webP, .heic, .avif, .tiff, .bmp, .jpegXL]

    let transport: any MediaTransport
    let allowedHTTPHosts: Set<String>
    let sendsURLCredentials: Bool
    let converter: (any AvatarConverter)?

    /// Fetches and prepares one avatar; nothing stays on disk.
    /// - Parameters:
    ///   - raw: the avatar URL as the payload gives it.
    ///   - folder: a fresh folder for the download (removed before returning).
    ///   - deadline: the pipeline's deadline.
    /// - Returns: the avatar to hand over.
    /// - Throws: `AvatarFailure` with the media reason.
    func avatar(_ raw: String, folder: URL, deadline: ContinuousClock.Instant) async throws(AvatarFailure) -> AvatarImage {
        defer { try? FileManager.default.removeItem(at: folder) }
        let url: URL
        do {
            url = try MediaURL.normalize(raw)
        } catch {
            throw AvatarFailure(.badURL, "the avatar URL is not usable: \((error as? FetchFailure)?.message ?? "\(raw)")")
        }
        var fetcher = MediaFetcher(transport: transport, allowedHTTPHosts: allowedHTTPHosts, sendsURLCredentials: sendsURLCredentials)
        fetcher.sourceByteLimit = RichPushMediaKind.image.maximumBytes
        let media: RichPushDownloadedMedia
        do {
            media = try await fetcher.fetch(url, into: folder, deadline: deadline)
        } catch {
            throw AvatarFailure(error.reason, error.message)
        }
        let format = media.format
        guard Self.drawnAsIs.contains(format) || Self.convertible.contains(format) else {
            throw AvatarFailure(.unsupportedFormat, "the avatar is \(format.name), not an image iOS can draw as an avatar")
        }
        if Self.drawnAsIs.contains(format) {
            do {
                _ = try RichPushMediaIntegrity.check(media.file, format: format)
            } catch {
                throw AvatarFailure(error.code == .tooManyPixels ? .tooLarge : .corruptMedia, error.message)
            }
            if media.bytes <= Self.maximumDataBytes {
                guard let data = try? Data(contentsOf: media.file) else { throw AvatarFailure(.storage, "the downloaded avatar could not be read") }
                return AvatarImage(data: data, format: format, sourceFormat: format, sourceBytes: media.bytes)
            }
        }
        guard let converter else {
            let why =
                Self.drawnAsIs.contains(format)
                ? "is \(media.bytes) bytes, over the \(Self.maximumDataBytes) handed over as data"
                : "is \(format.name), which iOS does not draw"
            throw AvatarFailure(
                Self.drawnAsIs.contains(format) ? .tooLarge : .unsupportedFormat, "the avatar \(why), and this platform has no converter")
        }
        guard ContinuousClock.now < deadline else { throw AvatarFailure(.timeout, "the deadline passed before the avatar was converted") }
        do {
            let converted = try converter.convert(media.file, format: format, maximumSide: Self.maximumSide, maximumBytes: Self.maximumDataBytes)
            return AvatarImage(data: converted.data, format: converted.format, sourceFormat: format, sourceBytes: media.bytes)
        } catch let failure as AvatarFailure {
            throw failure
        } catch {
            throw AvatarFailure(.unsupportedFormat, "the \(format.name) avatar could not be converted: \(error)")
        }
    }
}
