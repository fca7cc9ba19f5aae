#if !canImport(UserNotifications)
import Foundation

/// The error domain of UserNotifications errors (Apple: `UNErrorDomain`).
public let UNErrorDomain = "UNErrorDomain"

/// Stand-in for Apple's `UNError`: a UserNotifications error with a code.
///
/// On iOS, `UNNotificationAttachment(identifier:url:options:)` throws an `NSError` in
/// `UNErrorDomain` that Swift bridges to `UNError`; code written as
/// `catch let error as UNError { error.code … }` works the same with this stand-in.
public struct UNError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Apple's `UNError.Code` (an imported C enum, mirrored case for case with its raw values).
    public enum Code: Int, Sendable, Hashable {
        /// The app is not allowed to post notifications.
        case notificationsNotAllowed = 1
        /// The attachment's URL is not a file URL, or no readable file is there.
        case attachmentInvalidURL = 100
        /// The attachment's type is not one iOS attaches.
        case attachmentUnrecognizedType = 101
        /// The attachment is larger than its type allows (image 10 MB, audio 5 MB, video 50 MB).
        case attachmentInvalidFileSize = 102
        /// The attachment is not in the system's data store.
        case attachmentNotInDataStore = 103
        /// The attachment could not be moved into the system's data store.
        case attachmentMoveIntoDataStoreFailed = 104
        /// The attachment's file is corrupt (its bytes are not its declared type).
        case attachmentCorrupt = 105
    }

    /// The code.
    public let code: Code
    /// What was wrong, for a person (Apple puts this in `localizedDescription`).
    public let message: String

    /// Makes an error.
    /// - Parameters:
    ///   - code: the code.
    ///   - message: what was wrong.
    public init(_ code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `UNErrorDomain`.
    public static var errorDomain: String { UNErrorDomain }
    /// The raw code, as `NSError.code` gives it.
    public var errorCode: Int { code.rawValue }
    /// `UNErrorDomain Code=… "message"`, like `NSError`'s description.
    public var description: String { "\(UNErrorDomain) Code=\(code.rawValue) \"\(message)\"" }

    /// `UNError.attachmentInvalidURL` (Apple's type property spelling).
    public static var attachmentInvalidURL: Code { .attachmentInvalidURL }
    /// `UNError.attachmentUnrecognizedType`.
    public static var attachmentUnrecognizedType: Code { .attachmentUnrecognizedType }
    /// `UNError.attachmentInvalidFileSize`.
    public static var attachmentInvalidFileSize: Code { .attachmentInvalidFileSize }
    /// `UNError.attachmentNotInDataStore`.
    public static var attachmentNotInDataStore: Code { .attachmentNotInDataStore }
    /// `UNError.attachmentMoveIntoDataStoreFailed`.
    public static var attachmentMoveIntoDataStoreFailed: Code { .attachmentMoveIntoDataStoreFailed }
    /// `UNError.attachmentCorrupt`.
    public static var attachmentCorrupt: Code { .attachmentCorrupt }
}

extension UNError.Code {
    /// Lets `catch UNError.attachmentInvalidFileSize` match, as with Apple's bridged errors.
    /// - Parameters:
    ///   - code: the code to match.
    ///   - error: the thrown error.
    /// - Returns: whether `error` is a `UNError` with that code.
    public static func ~= (code: UNError.Code, error: any Error) -> Bool {
        (error as? UNError)?.code == code
    }
}
#endif
