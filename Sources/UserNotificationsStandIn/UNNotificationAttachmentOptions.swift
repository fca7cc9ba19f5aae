#if !canImport(UserNotifications)
import Foundation

/// The attachment's type as a UTType identifier string, e.g. `public.jpeg` (Apple: a hint
/// used instead of the file name extension).
public let UNNotificationAttachmentOptionsTypeHintKey: String = "UNNotificationAttachmentOptionsTypeHintKey"

/// A Boolean: hide the attachment's thumbnail.
public let UNNotificationAttachmentOptionsThumbnailHiddenKey: String = "UNNotificationAttachmentOptionsThumbnailHiddenKey"

/// A normalised clipping rectangle (a `CGRect` dictionary) for the thumbnail.
public let UNNotificationAttachmentOptionsThumbnailClippingRectKey: String =
    "UNNotificationAttachmentOptionsThumbnailClippingRectKey"

/// The frame (animated image, a number) or time (movie, seconds) to use as the thumbnail.
public let UNNotificationAttachmentOptionsThumbnailTimeKey: String = "UNNotificationAttachmentOptionsThumbnailTimeKey"
#endif
