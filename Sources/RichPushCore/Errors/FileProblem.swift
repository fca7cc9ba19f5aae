import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one message for a file that cannot be read or written, the same from every command and
/// library: the path, what is wrong (the system's reason, e.g. "no such file or directory") and
/// what to do — never Foundation's "The operation could not be completed".
///
/// ```
/// cannot read the APNs key nokey.p8: no such file or directory; check the path given to --key
/// cannot write the fixed payload to /nope/fixed.json: the folder /nope does not exist; create it (mkdir -p /nope) or give another path to --output
/// ```
@_spi(RichPushInternal)
public enum FileProblem {
    /// What was being done with the file.
    public enum Access: Sendable {
        /// Opening or reading it.
        case read
        /// Creating or writing it.
        case write
    }

    /// The error for a file that cannot be read or written.
    ///
    /// - Parameters:
    ///   - access: reading or writing.
    ///   - path: the path as the user gave it.
    ///   - what: what the file is, e.g. `the APNs key` (`nil`: the path alone).
    ///   - option: where the path came from, e.g. `--key`, for the advice (`nil`: not named).
    ///   - code: the `errno` value (`ENOENT`, `EACCES`, …).
    ///   - alternative: another way out, appended to the advice, e.g. `give - to read standard input`.
    ///   - underlying: the error that reported it, if any.
    /// - Returns: a `RichPushError` with code `io`.
    public static func error(
        _ access: Access, path: String, what: String? = nil, option: String? = nil, errno code: Int32,
        alternative: String? = nil, underlying: (any Error)? = nil
    ) -> RichPushError {
        let subject = what.map { access == .read ? "\($0) \(path)" : "\($0) to \(path)" } ?? path
        let given = option.map { " given to \($0)" } ?? ""
        let another = option.map { " or give another path to \($0)" } ?? " or give another path"
        var reason = systemReason(code)
        let advice: String
        switch (access, code) {
        case (.read, ENOENT): advice = "check the path\(given)"
        case (.write, ENOENT):
            let parent = (path as NSString).deletingLastPathComponent
            let folder = parent.isEmpty ? "." : parent
            reason = "the folder \(folder) does not exist"
            advice = "create it (mkdir -p \(folder))\(another)"
        case (_, ENOTDIR): advice = "a part of the path is a file, not a folder: check the path\(given)"
        case (.read, EISDIR): advice = "give a file, not a folder"
        case (.write, EISDIR): advice = "give a file name, not a folder"
        case (.read, EACCES), (.read, EPERM): advice = "check its permissions (ls -l \(path))"
        case (.write, EACCES), (.write, EPERM): advice = "check the folder's permissions,\(another)"
        case (_, EROFS): advice = "write somewhere else"
        case (_, ENOSPC), (_, EDQUOT): advice = "free some space\(access == .write ? "," + another : "")"
        case (_, ENAMETOOLONG), (_, ELOOP): advice = "check the path\(given)"
        default: advice = access == .read ? "check the file\(given)" : "check the path\(given)"
        }
        let verb = access == .read ? "read" : "write"
        return RichPushError(
            code: .io, message: "cannot \(verb) \(subject): \(reason); \(advice)\(alternative.map { ", or \($0)" } ?? "")",
            underlying: underlying)
    }

    /// The error for a file that cannot be read or written, from the error Foundation (or a
    /// POSIX call) threw; see `error(_:path:what:option:errno:alternative:underlying:)`.
    ///
    /// - Parameters:
    ///   - access: reading or writing.
    ///   - path: the path as the user gave it.
    ///   - what: what the file is (`nil`: the path alone).
    ///   - option: where the path came from, for the advice.
    ///   - cause: what was thrown.
    /// - Returns: a `RichPushError` with code `io`.
    public static func error(_ access: Access, path: String, what: String? = nil, option: String? = nil, cause: any Error) -> RichPushError {
        error(access, path: path, what: what, option: option, errno: errno(of: cause) ?? EIO, underlying: cause)
    }

    /// Reads a whole file, with `error(_:path:what:option:errno:alternative:underlying:)` when it
    /// cannot be read.
    ///
    /// - Parameters:
    ///   - path: the path.
    ///   - what: what the file is, for the message.
    ///   - option: where the path came from, for the message.
    /// - Returns: the file's bytes.
    /// - Throws: `RichPushError` with code `io`.
    public static func read(_ path: String, what: String? = nil, option: String? = nil) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Self.error(.read, path: path, what: what, option: option, cause: error)
        }
    }

    /// Writes a whole file atomically (a temporary file renamed into place), with
    /// `error(_:path:what:option:errno:alternative:underlying:)` when it cannot be written.
    ///
    /// - Parameters:
    ///   - data: the bytes.
    ///   - path: the path.
    ///   - what: what the file is, for the message.
    ///   - option: where the path came from, for the message.
    /// - Throws: `RichPushError` with code `io`.
    public static func write(_ data: Data, to path: String, what: String? = nil, option: String? = nil) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw Self.error(.write, path: path, what: what, option: option, errno: EISDIR)
        }
        // Not a regular file (a device such as /dev/stdout or /dev/full, a named pipe): written in
        // place, since it cannot be replaced by a renamed temporary file, and every failed write
        // reported (Foundation's write to a device lost ENOSPC).
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            if let code = writeInPlace(data, to: path) {
                throw Self.error(.write, path: path, what: what, option: option, errno: code)
            }
            return
        }
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw Self.error(.write, path: path, what: what, option: option, cause: error)
        }
    }

    /// Opens `path` for writing and writes all of `data`; the `errno` of the first failure, `nil`
    /// when every byte was written.
    private static func writeInPlace(_ data: Data, to path: String) -> Int32? {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { return systemErrno }
        let failure = writeAll(fd: fd, data)
        if close(fd) != 0, failure == nil { return systemErrno }
        return failure
    }

    /// Writes every byte of `data` to an open file descriptor, retrying after `EINTR` and `EAGAIN`
    /// and after short writes.
    ///
    /// - Parameters:
    ///   - fd: an open file descriptor (a file, a device, a pipe, standard output).
    ///   - data: the bytes to write.
    /// - Returns: the `errno` of the first failure (`EIO` for a write of 0 bytes), `nil` when every
    ///   byte was written.
    public static func writeAll(fd: Int32, _ data: Data) -> Int32? {
        data.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let n = systemWrite(fd, base + offset, raw.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0, systemErrno == EINTR || systemErrno == EAGAIN {
                    continue
                } else {
                    return n == 0 ? EIO : systemErrno
                }
            }
            return nil
        }
    }

    /// The C `errno` (the name `errno` here is `errno(of:)`).
    private static var systemErrno: Int32 {
        #if canImport(Glibc)
        Glibc.errno
        #else
        Darwin.errno
        #endif
    }

    private static func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, buffer, count)
        #else
        Darwin.write(fd, buffer, count)
        #endif
    }

    /// The `errno` behind an error Foundation threw (its POSIX underlying error, or the POSIX
    /// meaning of its Cocoa file code); `nil` when it has none.
    /// - Parameter error: what was thrown.
    /// - Returns: the `errno` value.
    public static func errno(of error: any Error) -> Int32? {
        var current: (any Error)? = error
        var depth = 0
        while let e = current, depth < 8 {
            if let posix = e as? POSIXError { return posix.code.rawValue }
            let ns = e as NSError
            if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
            current = ns.userInfo[NSUnderlyingErrorKey] as? any Error
            depth += 1
        }
        switch CocoaError.Code(rawValue: (error as NSError).code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return ENOENT
        case .fileReadNoPermission, .fileWriteNoPermission: return EACCES
        case .fileWriteVolumeReadOnly: return EROFS
        case .fileWriteOutOfSpace: return ENOSPC
        case .fileReadInvalidFileName, .fileWriteInvalidFileName: return ENAMETOOLONG
        default: return nil
        }
    }

    /// A file error in a few words ("no such file or directory", "permission denied"), without
    /// Foundation's "The operation could not be completed".
    /// - Parameter error: what was thrown.
    /// - Returns: the system's reason when there is one, else the error's shortest description.
    public static func reason(of error: any Error) -> String {
        if let code = errno(of: error) { return systemReason(code) }
        let text = (error as NSError).localizedDescription
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    /// `strerror` in lower case ("no such file or directory").
    static func systemReason(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text).lowercased()
    }
}
