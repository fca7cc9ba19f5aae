#if !canImport(UserNotifications)
import Foundation

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The error domain of UserNotifications errors (Apple: `UNErrorDomain`).
public let UNErrorDomain: String = "UNErrorDomain"

/// Stand-in for Apple's `UNError`: a UserNotifications error with a code.
///
/// Declared as Swift imports Apple's `UNErrorCode` (`NS_ERROR_ENUM(UNErrorDomain)`): a struct
/// that wraps an `NSError` in `UNErrorDomain` (Foundation's `_BridgedStoredNSError`), so the same
/// members come from Foundation on both platforms — `init(_:userInfo:)`, `code`, `errorCode`,
/// `userInfo`, `localizedDescription`, and `catch UNError.attachmentInvalidURL` matching.
public struct UNError: _BridgedStoredNSError {
    /// The wrapped error (its domain is `UNErrorDomain`).
    public let _nsError: NSError

    /// Wraps an `NSError` of `UNErrorDomain`.
    /// - Parameter _nsError: the error; its domain must be `UNErrorDomain`.
    public init(_nsError: NSError) {
        precondition(_nsError.domain == UNErrorDomain, "UNError wraps only UNErrorDomain errors")
        self._nsError = _nsError
    }

    /// `UNErrorDomain`.
    public static var errorDomain: String { UNErrorDomain }
    /// `UNErrorDomain`, as Foundation's bridging asks for it.
    public static var _nsErrorDomain: String { UNErrorDomain }

    /// Apple's `UNErrorCode`: the twelve codes of the iOS 16 SDK, with their raw values.
    public enum Code: Int, _ErrorCodeProtocol, Sendable, Equatable {
        /// The error type the codes belong to.
        public typealias _ErrorType = UNError

        /// The app is not allowed to post notifications.
        case notificationsNotAllowed = 1
        /// The attachment's URL is not a file URL, or no readable file is there.
        case attachmentInvalidURL = 100
        /// The attachment's type (from the type hint or the file name extension) is not one iOS attaches.
        case attachmentUnrecognizedType = 101
        /// The attachment is larger than its type allows (image 10 MB, audio 5 MB, video 50 MB).
        case attachmentInvalidFileSize = 102
        /// The attachment is not in the system's data store.
        case attachmentNotInDataStore = 103
        /// The attachment could not be moved into the system's data store.
        case attachmentMoveIntoDataStoreFailed = 104
        /// The attachment's file is corrupt.
        case attachmentCorrupt = 105
        /// A calendar trigger has no date.
        case notificationInvalidNoDate = 1400
        /// The notification has no content.
        case notificationInvalidNoContent = 1401
        /// The content-providing object is not allowed.
        case contentProvidingObjectNotAllowed = 1500
        /// The content-providing object is invalid.
        case contentProvidingInvalid = 1501
        /// The badge count is invalid.
        case badgeInputInvalid = 1600
    }

    /// `UNError.Code.notificationsNotAllowed`.
    public static var notificationsNotAllowed: UNError.Code { .notificationsNotAllowed }
    /// `UNError.Code.attachmentInvalidURL`.
    public static var attachmentInvalidURL: UNError.Code { .attachmentInvalidURL }
    /// `UNError.Code.attachmentUnrecognizedType`.
    public static var attachmentUnrecognizedType: UNError.Code { .attachmentUnrecognizedType }
    /// `UNError.Code.attachmentInvalidFileSize`.
    public static var attachmentInvalidFileSize: UNError.Code { .attachmentInvalidFileSize }
    /// `UNError.Code.attachmentNotInDataStore`.
    public static var attachmentNotInDataStore: UNError.Code { .attachmentNotInDataStore }
    /// `UNError.Code.attachmentMoveIntoDataStoreFailed`.
    public static var attachmentMoveIntoDataStoreFailed: UNError.Code { .attachmentMoveIntoDataStoreFailed }
    /// `UNError.Code.attachmentCorrupt`.
    public static var attachmentCorrupt: UNError.Code { .attachmentCorrupt }
    /// `UNError.Code.notificationInvalidNoDate`.
    public static var notificationInvalidNoDate: UNError.Code { .notificationInvalidNoDate }
    /// `UNError.Code.notificationInvalidNoContent`.
    public static var notificationInvalidNoContent: UNError.Code { .notificationInvalidNoContent }
    /// `UNError.Code.contentProvidingObjectNotAllowed`.
    public static var contentProvidingObjectNotAllowed: UNError.Code { .contentProvidingObjectNotAllowed }
    /// `UNError.Code.contentProvidingInvalid`.
    public static var contentProvidingInvalid: UNError.Code { .contentProvidingInvalid }
    /// `UNError.Code.badgeInputInvalid`.
    public static var badgeInputInvalid: UNError.Code { .badgeInputInvalid }
}
#endif
