// AttachmentImage.swift — decodes an attachment's picture for the content extension, within its
// memory: a picture no larger than the view needs, an animated GIF's frames within a budget.
import ImageIO
import UIKit

/// Decodes pictures through ImageIO's thumbnail API (it decodes no more pixels than it returns).
enum AttachmentImage {
    /// The most pixels a picture may declare before anything is decoded: RichPush's bound,
    /// 8192 × 8192 (`RichPushMediaIntegrity.maximumPixels`; 256 MB decoded at 4 bytes a pixel). A 545-byte
    /// PNG can declare 60000 × 60000; its header is all that is read.
    static let maximumSourcePixels = 8192 * 8192
    /// The most memory the decoded frames of an animation may take together: 16 MB, of the
    /// ~24 MB an extension may hold. 200 GIF frames at 1170 px would be about 1.1 GB.
    static let frameMemoryBudget = 16 * 1024 * 1024
    /// The most frames shown of an animation, whatever their size.
    static let maximumFrames = 200

    /// The picture at most `maximumPixels` wide or high; an animated GIF's frames up to
    /// `frameMemoryBudget`. `nil` for a picture that declares more than `maximumSourcePixels` (a
    /// pixel flood) or cannot be read. The caller holds the file's security-scoped access.
    /// - Parameters:
    ///   - url: the attachment's file (in iOS's store).
    ///   - maximumPixels: the longest side wanted, in pixels.
    /// - Returns: the image, or `nil`.
    static func decode(_ url: URL, maximumPixels: CGFloat) -> UIImage? {
        guard let source = CGImageSourceCreateWithURL(url as CFURL, [kCGImageSourceShouldCache: false] as CFDictionary) else { return nil }
        // The declared size comes from the header: nothing is decoded yet.
        guard let header = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
            let width = header[kCGImagePropertyPixelWidth] as? Int, let height = header[kCGImagePropertyPixelHeight] as? Int,
            width > 0, height > 0
        else { return nil }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maximumSourcePixels else { return nil }
        let side = min(maximumPixels, CGFloat(max(width, height)))
        let scale = side / CGFloat(max(width, height))
        let frameBytes = max(1, Int((CGFloat(width) * scale).rounded(.up)) * Int((CGFloat(height) * scale).rounded(.up)) * 4)
        let options =
            [
                kCGImageSourceCreateThumbnailFromImageAlways: true,
                kCGImageSourceCreateThumbnailWithTransform: true,
                kCGImageSourceShouldCacheImmediately: true,
                kCGImageSourceThumbnailMaxPixelSize: side,
            ] as CFDictionary
        let count = CGImageSourceGetCount(source)
        guard count > 1 else {
            return CGImageSourceCreateThumbnailAtIndex(source, 0, options).map { UIImage(cgImage: $0) }
        }
        let frameCount = max(1, min(count, maximumFrames, frameMemoryBudget / frameBytes))
        var frames: [UIImage] = []
        var duration = 0.0
        for index in 0..<frameCount {
            guard let frame = CGImageSourceCreateThumbnailAtIndex(source, index, options) else { continue }
            frames.append(UIImage(cgImage: frame))
            let properties = CGImageSourceCopyPropertiesAtIndex(source, index, nil) as? [CFString: Any]
            let gif = properties?[kCGImagePropertyGIFDictionary] as? [CFString: Any]
            let delay = (gif?[kCGImagePropertyGIFUnclampedDelayTime] as? Double) ?? (gif?[kCGImagePropertyGIFDelayTime] as? Double) ?? 0.1
            duration += delay < 0.02 ? 0.1 : delay  // as browsers do for 0 / 10 ms delays
        }
        return UIImage.animatedImage(with: frames, duration: duration)
    }

    /// Decodes one attachment's picture under its own security-scoped access: opened, read, closed.
    /// - Parameters:
    ///   - url: the attachment's file.
    ///   - maximumPixels: the longest side wanted, in pixels.
    /// - Returns: the image, or `nil`.
    static func decodeScoped(_ url: URL, maximumPixels: CGFloat) -> UIImage? {
        let scoped = url.startAccessingSecurityScopedResource()
        defer { if scoped { url.stopAccessingSecurityScopedResource() } }
        return decode(url, maximumPixels: maximumPixels)
    }
}
