#if !canImport(UserNotifications)
import Foundation

// The stand-in keeps Apple's names (UserNotifications' global constants), so code written for iOS
// compiles unchanged on Linux: swift-format's lowerCamelCase rule is waived for each of them.

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The attachment's type as a UTType identifier string, e.g. `public.jpeg` (Apple: a hint
/// used instead of the file name extension).
public let UNNotificationAttachmentOptionsTypeHintKey: String = "UNNotificationAttachmentOptionsTypeHintKey"

// swift-format-ignore: AlwaysUseLowerCamelCase
/// A Boolean: hide the attachment's thumbnail.
public let UNNotificationAttachmentOptionsThumbnailHiddenKey: String = "UNNotificationAttachmentOptionsThumbnailHiddenKey"

// swift-format-ignore: AlwaysUseLowerCamelCase
/// A normalised clipping rectangle (a `CGRect` dictionary) for the thumbnail.
public let UNNotificationAttachmentOptionsThumbnailClippingRectKey: String =
    "UNNotificationAttachmentOptionsThumbnailClippingRectKey"

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The frame (animated image, a number) or time (movie, seconds) to use as the thumbnail.
public let UNNotificationAttachmentOptionsThumbnailTimeKey: String = "UNNotificationAttachmentOptionsThumbnailTimeKey"
#endif
