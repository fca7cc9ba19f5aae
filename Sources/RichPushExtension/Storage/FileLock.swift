import Foundation
@_spi(RichPushInternal) import RichPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock on a file (`flock(2)`), held for the duration of a closure.
///
/// Serialises the extension process, the app and any other extension process that share an
/// App Group container: the media cache index, the receipt queue and the badge counter are only
/// read and written while holding their lock file. `flock` is released by the kernel if the
/// process dies, so a crashed extension never leaves the lock held.
struct FileLock: Sendable {
    /// The lock file (created if missing; its content is unused).
    let url: URL

    /// Runs `body` while holding the lock; blocks until the lock is free.
    ///
    /// Hold it only for file work (milliseconds), never across a network request.
    /// - Throws: `RichPushError` `io` when the lock file cannot be opened or locked, or what
    ///   `body` throws.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw FileProblem.error(.write, path: url.path, what: "the lock file", errno: errno)
        }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            throw RichPushError(code: .io, message: "cannot lock \(url.path): \(String(cString: strerror(errno)))")
        }
        defer { _ = flock(fd, LOCK_UN) }
        return try body()
    }
}
