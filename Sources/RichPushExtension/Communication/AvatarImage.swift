import Foundation

/// An avatar ready to hand over: image bytes of a format iOS draws (JPEG, PNG, GIF), held in
/// memory and given to `INImage(imageData:)`, never a file URL (an `INImage` made from a file in
/// the extension's container is never drawn: the system reads it in another process).
@_spi(RichPushInternal)
public struct AvatarImage: Sendable, Equatable {
    /// The image bytes.
    public var data: Data
    /// Their format: JPEG, PNG or GIF.
    public var format: RichPushMediaFormat
    /// The format the avatar server sent (the same as `format` unless converted).
    public var sourceFormat: RichPushMediaFormat
    /// The size the avatar server sent, in bytes.
    public var sourceBytes: Int

    /// Whether the bytes were converted (another format, or made smaller).
    public var converted: Bool { format != sourceFormat || data.count != sourceBytes }

    /// Makes an avatar.
    /// - Parameters:
    ///   - data: the image bytes (JPEG, PNG or GIF).
    ///   - format: their format.
    ///   - sourceFormat: the format fetched.
    ///   - sourceBytes: the size fetched, in bytes.
    public init(data: Data, format: RichPushMediaFormat, sourceFormat: RichPushMediaFormat, sourceBytes: Int) {
        self.data = data
        self.format = format
        self.sourceFormat = sourceFormat
        self.sourceBytes = sourceBytes
    }
}
