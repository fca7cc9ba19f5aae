#if !canImport(UserNotifications)
import Foundation
import RichPushCore

/// Stand-in for Apple's `UNNotificationAttachment`: a media file shown with a notification.
///
/// The initializer validates the file as iOS does and throws the same `UNError` codes, so a file
/// that passes here is one iOS accepts:
/// - not a `file:` URL, or no readable regular file there → `attachmentInvalidURL`;
/// - the bytes (sniffed with `MediaFormat.sniff`) are not an attachable type, the type hint is not
///   an attachable UTType, or there is neither a hint nor a known file name extension →
///   `attachmentUnrecognizedType`;
/// - the hint or extension names another kind of media than the bytes → `attachmentCorrupt`;
/// - larger than the type's limit → `attachmentInvalidFileSize` (Apple: image 10 MB, audio 5 MB,
///   video 50 MB; `MediaKind.maximumBytes`).
open class UNNotificationAttachment: NSObject, NSCopying {
    /// The identifier given at creation (a fresh UUID string when that was empty).
    public let identifier: String
    /// The file's URL (after delivery, iOS's data store; see `ExtensionHost`).
    public let url: URL
    /// The UTType identifier, e.g. `public.jpeg`.
    public let type: String

    /// Makes an attachment from a local file, validating it as iOS does.
    ///
    /// - Parameters:
    ///   - identifier: a unique identifier; empty for a generated one.
    ///   - URL: a file URL to a readable media file.
    ///   - options: `UNNotificationAttachmentOptionsTypeHintKey` (a UTType identifier) and the
    ///     thumbnail keys.
    /// - Throws: `UNError` with `attachmentInvalidURL`, `attachmentUnrecognizedType`,
    ///   `attachmentCorrupt` or `attachmentInvalidFileSize`.
    public init(identifier: String, url URL: URL, options: [AnyHashable: Any]? = nil) throws {
        let format = try Self.validate(url: URL, options: options ?? [:])
        self.identifier = identifier.isEmpty ? UUID().uuidString : identifier
        self.url = URL
        self.type = format.uniformTypeIdentifier
        super.init()
    }

    /// The same attachment at a new location (the host's data store after the move).
    package init(movedFrom attachment: UNNotificationAttachment, to url: URL) {
        identifier = attachment.identifier
        self.url = url
        type = attachment.type
        super.init()
    }

    /// Returns the receiver: an attachment is immutable.
    /// - Parameter zone: unused.
    /// - Returns: `self`.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    private static func validate(url: URL, options: [AnyHashable: Any]) throws -> MediaFormat {
        guard url.isFileURL else {
            throw UNError(.attachmentInvalidURL, message: "Invalid attachment file URL: \(url.absoluteString) is not a file URL")
        }
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isReadableFile(atPath: path), let handle = FileHandle(forReadingAtPath: path)
        else {
            throw UNError(.attachmentInvalidURL, message: "Invalid attachment file URL: no readable file at \(path)")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: MediaFormat.sniffLength)) ?? Data()
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0

        guard let sniffed = MediaFormat.sniff(head), let kind = sniffed.kind else {
            let what = MediaFormat.sniff(head).map { "\($0.name), which iOS does not attach" } ?? "not a media file"
            throw UNError(.attachmentUnrecognizedType, message: "Unrecognized attachment file type: \(path) is \(what)")
        }
        let declared: MediaFormat
        if let hint = options[UNNotificationAttachmentOptionsTypeHintKey] {
            guard let hint = hint as? String, let format = MediaFormat.forUniformTypeIdentifier(hint), format.isAttachable else {
                throw UNError(
                    .attachmentUnrecognizedType,
                    message: "Unrecognized attachment file type: type hint \(hint) is not an attachable UTType identifier (e.g. public.jpeg)"
                )
            }
            declared = format
        } else {
            let ext = url.pathExtension.lowercased()
            guard let format = Self.format(forExtension: ext) else {
                throw UNError(
                    .attachmentUnrecognizedType,
                    message: "Unrecognized attachment file type: no type hint and no known extension on \(url.lastPathComponent)"
                )
            }
            declared = format
        }
        guard declared.kind == kind else {
            throw UNError(
                .attachmentCorrupt,
                message: "Attachment file is corrupt: declared \(declared.name) but the bytes are \(sniffed.name)"
            )
        }
        guard size <= kind.maximumBytes else {
            throw UNError(
                .attachmentInvalidFileSize,
                message: "Invalid attachment file size: \(size) bytes is over the \(kind.rawValue) limit of \(kind.maximumBytes) bytes"
            )
        }
        return sniffed
    }

    private static func format(forExtension ext: String) -> MediaFormat? {
        switch ext {
        case "jpeg", "jpe": return .jpeg
        case "m4v": return .mpeg4
        case "aif", "aifc": return .aiff
        case "mpeg", "mpe", "m1v", "m2v": return .mpeg
        case "qt": return .quickTime
        default: return MediaFormat.attachable.first { $0.fileExtension == ext }
        }
    }
}
#endif
