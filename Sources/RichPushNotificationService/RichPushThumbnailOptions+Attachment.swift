import Foundation
import RichPushExtension

#if canImport(UserNotifications)
@preconcurrency import UserNotifications
#else
@preconcurrency import UserNotificationsStandIn
#endif
#if canImport(CoreGraphics)
import CoreGraphics
#endif

extension RichPushThumbnailOptions {
    /// The options dictionary for `UNNotificationAttachment(identifier:url:options:)`: the type
    /// hint plus the thumbnail keys this value sets.
    ///
    /// - `UNNotificationAttachmentOptionsThumbnailClippingRectKey`: a `CGRect` dictionary
    ///   (`CGRect.dictionaryRepresentation`; keys `X`, `Y`, `Width`, `Height`) in unit coordinates;
    /// - `UNNotificationAttachmentOptionsThumbnailTimeKey`: seconds (a number; Apple also accepts a
    ///   `CMTime` dictionary, or a frame number for an animated image);
    /// - `UNNotificationAttachmentOptionsThumbnailHiddenKey`: a Boolean, only when hidden.
    /// - Parameters:
    ///   - thumbnail: the payload's options, or `nil`.
    ///   - typeHint: the attachment's UTType identifier.
    /// - Returns: the dictionary.
    public static func attachmentOptions(_ thumbnail: RichPushThumbnailOptions?, typeHint: String) -> [AnyHashable: Any] {
        var options: [AnyHashable: Any] = [UNNotificationAttachmentOptionsTypeHintKey: typeHint]
        guard let thumbnail else { return options }
        if let r = thumbnail.clippingRect {
            #if canImport(CoreGraphics)
            options[UNNotificationAttachmentOptionsThumbnailClippingRectKey] =
                CGRect(x: r.x, y: r.y, width: r.width, height: r.height).dictionaryRepresentation
            #else
            options[UNNotificationAttachmentOptionsThumbnailClippingRectKey] = ["X": r.x, "Y": r.y, "Width": r.width, "Height": r.height]
            #endif
        }
        if let time = thumbnail.time { options[UNNotificationAttachmentOptionsThumbnailTimeKey] = time }
        if thumbnail.hidden { options[UNNotificationAttachmentOptionsThumbnailHiddenKey] = true }
        return options
    }
}
