import Foundation

/// How the notification's thumbnail is drawn from an attachment, as plain values; the bridge
/// maps them to `UNNotificationAttachmentOptionsThumbnailClippingRectKey` (a `CGRect` dictionary),
/// `…ThumbnailTimeKey` (seconds) and `…ThumbnailHiddenKey`.
///
/// Payload form (top-level `thumbnail`):
/// `{"clip": [x, y, width, height], "time": 2.5, "hidden": false}` — the clipping rectangle in
/// unit coordinates (0…1 of the image, Apple's convention for this key), the video frame time in
/// seconds, and whether to hide the thumbnail.
public struct RichPushThumbnailOptions: Sendable, Equatable, Codable {
    /// The payload key.
    public static let payloadKey = "thumbnail"

    /// A rectangle in unit coordinates: every value in 0…1, width and height above 0, and
    /// `x + width ≤ 1`, `y + height ≤ 1`.
    public struct ClippingRect: Sendable, Equatable, Codable {
        /// Left edge, 0…1 of the image's width.
        public var x: Double
        /// Top edge, 0…1 of the image's height.
        public var y: Double
        /// Width, above 0 and at most 1 − x.
        public var width: Double
        /// Height, above 0 and at most 1 − y.
        public var height: Double

        /// Makes a rectangle (not validated; `RichPushThumbnailOptions.parse` validates).
        /// - Parameters:
        ///   - x: left edge (0…1).
        ///   - y: top edge (0…1).
        ///   - width: width (0…1).
        ///   - height: height (0…1).
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// The part of the image shown as the thumbnail.
    public var clippingRect: ClippingRect?
    /// For video: the frame at this time, in seconds from the start (≥ 0).
    public var time: Double?
    /// Hide the thumbnail.
    public var hidden: Bool

    /// Makes options.
    /// - Parameters:
    ///   - clippingRect: the clipping rectangle in unit coordinates.
    ///   - time: the video frame time in seconds.
    ///   - hidden: hide the thumbnail.
    public init(clippingRect: ClippingRect? = nil, time: Double? = nil, hidden: Bool = false) {
        self.clippingRect = clippingRect
        self.time = time
        self.hidden = hidden
    }

    /// Reads and validates the payload's `thumbnail` object.
    ///
    /// - Parameter payload: the payload (after decryption).
    /// - Returns: the options, or `nil` when the payload has no `thumbnail` key.
    /// - Throws: `PayloadOptionError` `invalid_thumbnail` naming the field that is wrong.
    @_spi(RichPushInternal)
    public static func parse(payload: RichPushJSONValue) throws(PayloadOptionError) -> RichPushThumbnailOptions? {
        guard let value = payload[payloadKey] else { return nil }
        guard let object = value.objectValue else {
            throw PayloadOptionError(.invalidThumbnail, "thumbnail must be an object with clip, time and/or hidden")
        }
        var options = RichPushThumbnailOptions()
        if let clip = object["clip"] {
            let numbers = clip.arrayValue?.compactMap(Self.number) ?? []
            guard clip.arrayValue?.count == 4, numbers.count == 4 else {
                throw PayloadOptionError(.invalidThumbnail, "thumbnail.clip must be [x, y, width, height] numbers")
            }
            let rect = ClippingRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
            guard numbers.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }), rect.width > 0, rect.height > 0,
                rect.x + rect.width <= 1 + 1e-9, rect.y + rect.height <= 1 + 1e-9
            else {
                throw PayloadOptionError(.invalidThumbnail, "thumbnail.clip must lie within the unit square (0…1), with width and height above 0")
            }
            options.clippingRect = rect
        }
        if let time = object["time"] {
            guard let seconds = Self.number(time), seconds.isFinite, seconds >= 0 else {
                throw PayloadOptionError(.invalidThumbnail, "thumbnail.time must be a number of seconds ≥ 0")
            }
            options.time = seconds
        }
        if let hidden = object["hidden"] {
            guard case .bool(let b) = hidden else {
                throw PayloadOptionError(.invalidThumbnail, "thumbnail.hidden must be true or false")
            }
            options.hidden = b
        }
        return options
    }

    private static func number(_ value: RichPushJSONValue) -> Double? {
        value.doubleValue
    }
}
