#if !canImport(UserNotifications)
import Foundation

/// The attachment's type as a UTType identifier string, e.g. `public.jpeg` (Apple: a hint
/// used instead of the file name extension).
public let UNNotificationAttachmentOptionsTypeHintKey = "UNNotificationAttachmentOptionsTypeHintKey"

/// A Boolean: hide the attachment's thumbnail.
public let UNNotificationAttachmentOptionsThumbnailHiddenKey = "UNNotificationAttachmentOptionsThumbnailHiddenKey"

/// A normalised clipping rectangle (a `CGRect` dictionary) for the thumbnail.
public let UNNotificationAttachmentOptionsThumbnailClippingRectKey =
    "UNNotificationAttachmentOptionsThumbnailClippingRectKey"

/// The frame (animated image, a number) or time (movie, seconds) to use as the thumbnail.
public let UNNotificationAttachmentOptionsThumbnailTimeKey = "UNNotificationAttachmentOptionsThumbnailTimeKey"
#endif
