import Foundation

#if canImport(os)
import os
#endif

/// Where the bridge says what went wrong: the unified log on Apple platforms (subsystem
/// `dev.richpush`, as `RichPushLogger`'s notification lines, category `NotificationService`),
/// stderr elsewhere.
///
/// Messages never contain payload text or device tokens.
enum RichPushLog {
    #if canImport(os)
    private static let logger = Logger(subsystem: "dev.richpush", category: "NotificationService")
    #endif

    /// Logs a problem a developer must fix (a bad Info.plist value, a refused attachment).
    /// - Parameter message: what was wrong and what to do.
    static func error(_ message: String) {
        #if canImport(os)
        logger.error("\(message, privacy: .public)")
        #else
        FileHandle.standardError.write(Data("RichPush: \(message)\n".utf8))
        #endif
    }
}
