import Foundation
@_spi(RichPushInternal) import RichPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `read(2)` (a free function: inside `InputFile` the name `read` is the type's own).
func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// `open(2)` for reading (a free function: inside `InputFile` the name `open` is the type's own).
func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
    open(path, flags)
}

/// Reads a command's input file, or standard input for `-`, with POSIX calls and a clear error
/// for every way it can fail: standard input closed (`<&-`), a directory (`< /`), an I/O error
/// (EIO from a terminal that went away), a missing or unreadable file, or more bytes than a
/// payload can be. Never a crash (Foundation's `readDataToEndOfFile()` traps on a read error).
enum InputFile {
    /// Bytes read at most: a payload is at most 4096 bytes (5120 for VoIP, Apple); 16 MiB keeps
    /// `richpush lint /dev/zero` from filling memory while leaving room for any real mistake.
    static let maximumBytes = 16 << 20

    /// Reads a whole file, or standard input for `-`, on a thread of its own (reading a pipe
    /// blocks, and a cooperative-pool thread never may).
    ///
    /// - Parameters:
    ///   - path: the path, or `-` for standard input.
    ///   - what: what the file is, for messages (`the payload`, `PLAINTEXT.json`).
    ///   - option: the option that named the file (`--payload`), for messages; `nil` for a positional.
    /// - Returns: the bytes.
    /// - Throws: `RichPushError` `io` saying what is wrong and what to do.
    static func read(_ path: String, what: String = "the payload", option: String? = nil) async throws -> Data {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
            Thread { continuation.resume(with: Result { try readBlocking(path, what: what, option: option) }) }.start()
        }
    }

    /// Reads a whole file or standard input on the calling thread (see `read(_:what:option:)`).
    static func readBlocking(_ path: String, what: String, option: String? = nil) throws -> Data {
        let fd = try open(path, what: what, option: option)
        defer { if path != "-" { _ = close(fd) } }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                data.append(contentsOf: buffer[0..<n])
                if data.count > maximumBytes {
                    throw RichPushError(
                        code: .io,
                        message:
                            "\(describe(path)) holds more than \(maximumBytes >> 20) MiB; \(what) is a push payload (Apple: at most 4096 bytes, 5120 for VoIP): check that it is the right file"
                    )
                }
            } else if n == 0 {
                return data
            } else if errno != EINTR {
                throw failure(path, what: what, option: option, errno: errno)
            }
        }
    }

    /// Opens `path` for reading (`-`: checks that standard input is open and not a directory).
    /// - Returns: the descriptor (0 for standard input).
    static func open(_ path: String, what: String, option: String? = nil) throws -> Int32 {
        let fd: Int32
        if path == "-" {
            guard !StandardStreams.inputWasClosed else { throw failure(path, what: what, errno: EBADF) }
            fd = 0
        } else {
            fd = systemOpen(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw failure(path, what: what, option: option, errno: errno) }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = errno
            if path != "-" { _ = close(fd) }
            throw failure(path, what: what, option: option, errno: error)
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            if path != "-" { _ = close(fd) }
            throw failure(path, what: what, option: option, errno: EISDIR)
        }
        return fd
    }

    /// `standard input` or the path.
    static func describe(_ path: String) -> String {
        path == "-" ? "standard input" : path
    }

    /// The error for a failed open, stat or read, with what to do (a file: `FileProblem`'s message).
    static func failure(_ path: String, what: String, option: String? = nil, errno code: Int32) -> RichPushError {
        let reason = String(cString: strerror(code)).lowercased()
        if path == "-" {
            let advice: String
            switch code {
            case EBADF: advice = "standard input is closed; pipe \(what) in (e.g. `< payload.json`) or give a file instead of -"
            case EISDIR: advice = "standard input is a directory; redirect a file into it (`< payload.json`) or give a file instead of -"
            case EIO:
                advice =
                    "standard input cannot be read (input/output error: a background job reading its terminal, or a terminal that is gone); pipe \(what) in or give a file instead of -"
            default: advice = "standard input cannot be read (\(reason)); pipe \(what) in or give a file instead of -"
            }
            return RichPushError(code: .io, message: "cannot read \(what): \(advice)")
        }
        return FileProblem.error(.read, path: path, what: what, option: option, errno: code, alternative: "give - to read standard input")
    }
}
