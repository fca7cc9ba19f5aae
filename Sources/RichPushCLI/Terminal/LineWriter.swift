import Foundation
@_spi(RichPushInternal) import RichPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered lines to a file descriptor (standard output): one `write(2)` per 64 KiB, so ten
/// million JSON lines cost a few thousand system calls and no more memory than the buffer.
final class LineWriter {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let flushAt: Int

    /// Makes a writer.
    /// - Parameters:
    ///   - fd: the descriptor (default 1, standard output).
    ///   - flushAt: bytes buffered before a write.
    init(fd: Int32 = 1, flushAt: Int = 65_536) {
        self.fd = fd
        self.flushAt = flushAt
        buffer.reserveCapacity(flushAt + 1024)
    }

    /// Appends one line: `write` fills the buffer, then a newline is added.
    func line(_ write: (inout [UInt8]) -> Void) {
        write(&buffer)
        buffer.append(0x0A)
        if buffer.count >= flushAt { flush() }
    }

    /// The `errno` of the first failed write; once set, nothing more is written (the lines are
    /// lost: the caller reports it and stops).
    private(set) var failure: Int32?

    /// Writes what is buffered; a failure is kept in `failure` (a closed pipe is EPIPE: Swift's
    /// runtime ignores SIGPIPE).
    func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard failure == nil, !buffer.isEmpty else { return }
        failure = FileProblem.writeAll(fd: fd, Data(buffer))
    }
}
