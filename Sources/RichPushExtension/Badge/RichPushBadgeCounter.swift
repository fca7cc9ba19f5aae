import Foundation

/// The app icon's badge count kept in a shared container (App Group; here `--state DIR`), changed
/// atomically across processes: the extension applies `badge_op`, the app calls `resetBadge()`.
///
/// Stored as the decimal number in `badge.count`, changed only while holding `flock` on
/// `badge.lock`, and replaced by an atomic rename, so concurrent extension processes never lose
/// an increment and a reader never sees half a file.
public struct RichPushBadgeCounter: Sendable {
    /// The shared directory.
    public let directory: URL

    private var countFile: URL { directory.appendingPathComponent("badge.count") }
    private var lock: FileLock { FileLock(url: directory.appendingPathComponent("badge.lock")) }

    /// Makes a counter in a directory (created on first write).
    ///
    /// - Parameter directory: the App Group container (or a folder in it).
    public init(directory: URL) {
        self.directory = directory
    }

    /// The current badge (0 when never set or unreadable).
    ///
    /// - Throws: `RichPushError` `io` when the lock cannot be taken.
    public func current() throws -> Int {
        try lock.withLock { readUnlocked() }
    }

    /// Applies an operation atomically and returns the new badge, for `content.badge`.
    ///
    /// - Parameter operation: the payload's `badge_op`.
    /// - Returns: the new badge, 0…`BadgeOperation.maximumValue`.
    /// - Throws: `RichPushError` `io` when the lock or the file cannot be written.
    @discardableResult
    @_spi(RichPushInternal)
    public func apply(_ operation: BadgeOperation) throws -> Int {
        try lock.withLock {
            let value = operation.applied(to: readUnlocked())
            try AtomicFile.write(Data(String(value).utf8), to: countFile)
            return value
        }
    }

    /// Sets the badge to 0: call it from the app when the user has seen the notifications (and
    /// set `UIApplication.applicationIconBadgeNumber` / `UNUserNotificationCenter.setBadgeCount(0)`).
    ///
    /// - Throws: `RichPushError` `io` when the lock or the file cannot be written.
    public func resetBadge() throws {
        try apply(BadgeOperation(.set(0)))
    }

    private func readUnlocked() -> Int {
        guard let data = AtomicFile.read(countFile),
            let value = Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { return 0 }
        return min(max(value, 0), BadgeOperation.maximumValue)
    }
}
