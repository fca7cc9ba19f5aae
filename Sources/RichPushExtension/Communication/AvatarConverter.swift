import Foundation

/// Turns a downloaded avatar iOS would not draw as it is (WebP, HEIC, AVIF, TIFF, BMP, or one too
/// large to hand over in memory) into a small JPEG or PNG.
///
/// On Apple platforms `ImageIOAvatarConverter` (ImageIO, decoding no more pixels than it writes);
/// on Linux the host that plays iOS supplies one (`richpush simulate`: libvips).
@_spi(RichPushInternal)
public protocol AvatarConverter: Sendable {
    /// Converts an image file.
    /// - Parameters:
    ///   - file: the downloaded file.
    ///   - format: its sniffed format.
    ///   - maximumSide: the longest side of the result, in pixels.
    ///   - maximumBytes: the most bytes the result may have.
    /// - Returns: the image bytes and their format (JPEG or PNG).
    /// - Throws: any error when the file cannot be decoded or no result fits.
    func convert(_ file: URL, format: RichPushMediaFormat, maximumSide: Int, maximumBytes: Int) throws -> (data: Data, format: RichPushMediaFormat)
}

#if canImport(ImageIO)
import ImageIO

/// iOS's own decoders: a thumbnail of at most `maximumSide` pixels (ImageIO decodes no more than
/// that), written as PNG when it has an alpha channel, else as JPEG.
@_spi(RichPushInternal)
public struct ImageIOAvatarConverter: AvatarConverter {
    /// Makes the converter.
    public init() {}

    /// Converts with ImageIO (see `AvatarConverter.convert(_:format:maximumSide:maximumBytes:)`).
    /// - Parameters:
    ///   - file: the downloaded file.
    ///   - format: its sniffed format.
    ///   - maximumSide: the longest side of the result, in pixels.
    ///   - maximumBytes: the most bytes the result may have.
    /// - Returns: the image bytes and their format.
    /// - Throws: `AvatarFailure` when ImageIO cannot read the file or the result is too large.
    public func convert(_ file: URL, format: RichPushMediaFormat, maximumSide: Int, maximumBytes: Int) throws -> (data: Data, format: RichPushMediaFormat) {
        guard let source = CGImageSourceCreateWithURL(file as CFURL, [kCGImageSourceShouldCache: false] as CFDictionary) else {
            throw AvatarFailure(.unsupportedFormat, "ImageIO cannot read the \(format.name) avatar")
        }
        let options =
            [
                kCGImageSourceCreateThumbnailFromImageAlways: true,
                kCGImageSourceCreateThumbnailWithTransform: true,
                kCGImageSourceThumbnailMaxPixelSize: maximumSide,
            ] as CFDictionary
        guard let image = CGImageSourceCreateThumbnailAtIndex(source, 0, options) else {
            throw AvatarFailure(.corruptMedia, "ImageIO cannot decode the \(format.name) avatar")
        }
        let alpha = image.alphaInfo
        let opaque = alpha == .none || alpha == .noneSkipLast || alpha == .noneSkipFirst
        let output: RichPushMediaFormat = opaque ? .jpeg : .png
        let data = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(data as CFMutableData, output.uniformTypeIdentifier as CFString, 1, nil) else {
            throw AvatarFailure(.unsupportedFormat, "ImageIO cannot write \(output.name)")
        }
        CGImageDestinationAddImage(destination, image, [kCGImageDestinationLossyCompressionQuality: 0.85] as CFDictionary)
        guard CGImageDestinationFinalize(destination) else { throw AvatarFailure(.unsupportedFormat, "ImageIO cannot write \(output.name)") }
        guard data.length <= maximumBytes else {
            throw AvatarFailure(.tooLarge, "the converted avatar is \(data.length) bytes, over \(maximumBytes)")
        }
        return (data as Data, output)
    }
}
#endif
