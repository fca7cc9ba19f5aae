import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard descriptors as richpush found them at start.
///
/// A descriptor closed by the caller (`richpush lint - <&-`) would be handed to the next file the
/// process opens (an event descriptor, the database): reading "standard input" would then read
/// that file, and printing would write into it. `prepare()` runs first thing in `main`: it
/// remembers that standard input was closed and puts `/dev/null` on every closed one of 0, 1, 2.
public enum StandardStreams {
    /// Whether standard input was closed when richpush started.
    static let inputWasClosed: Bool = {
        let closed = fcntl(0, F_GETFD) == -1 && errno == EBADF
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            // open(2) returns the lowest free descriptor: this one.
            let opened = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)
            if opened >= 0, opened != fd {
                _ = dup2(opened, fd)
                _ = close(opened)
            }
        }
        return closed
    }()

    /// Checks the standard descriptors; call before anything else opens a file.
    public static func prepare() {
        _ = inputWasClosed
    }
}
