#if !canImport(UserNotifications)
import Foundation
internal import RichPushCore

/// Stand-in for Apple's `UNNotificationAttachment`: a media file shown with a notification.
///
/// The initializer checks what iOS checks when an extension creates an attachment, and throws the
/// same `UNError` codes; like iOS it does not read the file's bytes (the system validates the
/// content only after the extension hands the notification over, which is why RichPush checks
/// the bytes itself first, see `RichPushMediaIntegrity`):
/// - not a `file:` URL, or no readable regular file there → `attachmentInvalidURL`;
/// - the type, from the `UNNotificationAttachmentOptionsTypeHintKey` hint when given, else from
///   the file name extension, is not in Apple's table (`RichPushMediaFormat.appleAttachmentFormats`)
///   → `attachmentUnrecognizedType`;
/// - larger than the type's limit → `attachmentInvalidFileSize` (Apple: image 10 MB, audio 5 MB,
///   video 50 MB; `RichPushMediaKind.maximumBytes`).
open class UNNotificationAttachment: NSObject, NSCopying {
    private let storedIdentifier: String
    private let storedURL: URL
    private let storedType: String

    /// The identifier given at creation (a fresh UUID string when that was empty).
    open var identifier: String { storedIdentifier }
    /// The file's URL (after delivery, the system's data store; see `ExtensionHost`).
    open var url: URL { storedURL }
    /// The UTType identifier, e.g. `public.jpeg`.
    open var type: String { storedType }

    init(storedIdentifier: String, url: URL, type: String) {
        self.storedIdentifier = storedIdentifier
        self.storedURL = url
        self.storedType = type
        super.init()
    }

    /// Makes an attachment from a local file, checking it as iOS does.
    ///
    /// - Parameters:
    ///   - identifier: a unique identifier; empty for a generated one.
    ///   - URL: a file URL to a readable media file.
    ///   - options: `UNNotificationAttachmentOptionsTypeHintKey` (a UTType identifier string that
    ///     replaces the file name extension) and the thumbnail keys.
    /// - Throws: `UNError` with `attachmentInvalidURL`, `attachmentUnrecognizedType` or
    ///   `attachmentInvalidFileSize`.
    public convenience init(identifier: String, url URL: URL, options: [AnyHashable: Any]? = nil) throws {
        let format = try Self.validate(url: URL, options: options ?? [:])
        self.init(storedIdentifier: identifier.isEmpty ? UUID().uuidString : identifier, url: URL, type: format.uniformTypeIdentifier)
    }

    /// Returns the receiver: an attachment is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// The file name extensions iOS maps to the UTTypes of Apple's table (the system's type
    /// database, `UTType(filenameExtension:)`); other extensions name types iOS does not attach.
    static let extensionTypes: [String: RichPushMediaFormat] = [
        "jpg": .jpeg, "jpeg": .jpeg, "jpe": .jpeg, "png": .png, "gif": .gif,
        "aif": .aiff, "aiff": .aiff, "wav": .wav, "wave": .wav, "mp3": .mp3, "m4a": .mpeg4Audio,
        "mpg": .mpeg, "mpeg": .mpeg, "mpe": .mpeg, "m2v": .mpeg2Video, "mp4": .mpeg4, "avi": .avi,
    ]

    private static func error(_ code: UNError.Code, _ message: String) -> UNError {
        UNError(code, userInfo: [NSLocalizedDescriptionKey: message])
    }

    private static func validate(url: URL, options: [AnyHashable: Any]) throws -> RichPushMediaFormat {
        guard url.isFileURL else {
            throw error(.attachmentInvalidURL, "Invalid attachment file URL: \(url.absoluteString) is not a file URL")
        }
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isReadableFile(atPath: path)
        else {
            throw error(.attachmentInvalidURL, "Invalid attachment file URL: no readable file at \(path)")
        }
        let format: RichPushMediaFormat
        if let hint = options[UNNotificationAttachmentOptionsTypeHintKey] {
            guard let identifier = hint as? String, let hinted = RichPushMediaFormat.forUniformTypeIdentifier(identifier), hinted.isAttachable
            else {
                throw error(
                    .attachmentUnrecognizedType,
                    "Unrecognized attachment file type: type hint \(hint) is not a UTType identifier of Apple's table (e.g. public.jpeg)")
            }
            format = hinted
        } else {
            guard let byExtension = extensionTypes[url.pathExtension.lowercased()] else {
                throw error(
                    .attachmentUnrecognizedType,
                    "Unrecognized attachment file type: no type hint, and the extension of \(url.lastPathComponent) names no type of Apple's table")
            }
            format = byExtension
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        let limit = format.kind?.maximumBytes ?? 0
        guard size <= limit else {
            throw error(
                .attachmentInvalidFileSize,
                "Invalid attachment file size: \(size) bytes is over the \(format.name) limit of \(limit) bytes")
        }
        return format
    }
}
#endif
