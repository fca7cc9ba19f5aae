import Foundation
@_spi(RichPushInternal) import RichPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to standard output with every failure reported, never dropped (`print` and
/// `FileHandle.write` lose output on a full disk silently).
///
/// A full device (`> /dev/full`), an I/O error: `RichPushError` code `io`, "cannot write standard
/// output: no space left on device; …", exit status 1. A closed pipe (`| head -1`): `ClosedPipe`,
/// which the command line turns into a quiet exit with status 141 (128 + SIGPIPE, as a shell
/// reports a process that SIGPIPE ended; Swift's runtime ignores SIGPIPE, so `write` gets EPIPE).
enum StandardOutput {
    /// Standard output's reader went away (EPIPE): stop quietly.
    struct ClosedPipe: Error {}

    /// Exit status for a closed pipe: 128 + SIGPIPE (13), what the shell shows for a process ended by SIGPIPE.
    static let closedPipeExitStatus: Int32 = 141

    /// Writes all of `data` to descriptor 1 (retrying short writes and EINTR).
    /// - Parameter data: the bytes.
    /// - Throws: `ClosedPipe` on EPIPE, else `RichPushError` with code `io` (see `error(errno:)`).
    static func write(_ data: Data) throws {
        if let code = FileProblem.writeAll(fd: 1, data) { throw error(errno: code) }
    }

    /// Writes a string and a newline (as `print`).
    /// - Parameters:
    ///   - text: the text.
    ///   - terminator: appended, a newline by default.
    /// - Throws: as `write(_:)`.
    static func print(_ text: String, terminator: String = "\n") throws {
        try write(Data((text + terminator).utf8))
    }

    /// The error for a failed write to standard output.
    /// - Parameter code: the `errno` value.
    /// - Returns: `ClosedPipe` for EPIPE, else a `RichPushError` with code `io`.
    static func error(errno code: Int32) -> any Error {
        if code == EPIPE { return ClosedPipe() }
        let advice: String
        switch code {
        case ENOSPC, EDQUOT: advice = "free some space where standard output goes, or redirect it to another file (> FILE)"
        default: advice = "check where standard output goes (the file, pipe or terminal it is redirected to)"
        }
        let reason = String(cString: strerror(code)).lowercased()
        return RichPushError(code: .io, message: "cannot write standard output: \(reason); \(advice)")
    }
}
