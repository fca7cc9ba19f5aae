import Foundation
import RichPushExtension

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `richpush simulate`'s files: the payload (a file or `-` for stdin) and the folders it writes.
enum SimulateFiles {
    /// Reads the payload file, or standard input for `-`.
    /// - Parameter path: the path, or `-`.
    /// - Returns: the bytes.
    /// - Throws: `RichPushError` `io` saying what is wrong with the path and what to do.
    static func readPayload(_ path: String) async throws -> Data {
        if path == "-" {
            return try await InputFile.read(path)
        }
        let example = #"{"aps": {"alert": "Hello", "mutable-content": 1}}"#
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RichPushError(code: .io, message: "cannot read \(path): no such file. Check the path, or give - to read the payload from standard input.")
        }
        if isDirectory.boolValue {
            throw RichPushError(code: .io, message: "cannot read \(path): is a directory. Give a payload file, a JSON object such as \(example).")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw RichPushError(code: .io, message: "cannot read \(path): \(reason(error)). Check its permissions.", underlying: error)
        }
    }

    /// Makes sure a folder given on the command line exists (created if missing) and can be written.
    /// - Parameters:
    ///   - path: the folder.
    ///   - option: the option's name, for the message (`out`, `state`, `cache`).
    /// - Returns: the folder's URL.
    /// - Throws: `UsageError` (exit 64) saying why the folder cannot be used.
    static func writableDirectory(_ path: String, option: String) throws -> URL {
        let url = URL(fileURLWithPath: path, isDirectory: true)
        func refuse(_ why: String) -> UsageError {
            UsageError(command: "simulate", message: "'--\(option) \(path)' cannot be used: \(why). Give a folder you can write to (it is created if missing).")
        }
        guard !path.isEmpty else { throw refuse("the path is empty") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw refuse("it is a file, not a folder") }
        } else {
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw refuse("it cannot be created (\(reason(error)))")
            }
        }
        // Write a probe file: permission bits alone do not tell (root, read-only mounts, /proc).
        let probe = url.appendingPathComponent(".richpush-write-test-\(UUID().uuidString.lowercased())")
        guard FileManager.default.createFile(atPath: probe.path, contents: Data()) else {
            throw refuse("it is not writable")
        }
        try? FileManager.default.removeItem(at: probe)
        return url
    }

    /// A file error in a few words ("no such file", "permission denied"), without Foundation's wording.
    /// - Parameter error: what Foundation threw.
    /// - Returns: the POSIX reason when there is one, else the shortest description.
    static func reason(_ error: any Error) -> String {
        var current: NSError? = error as NSError
        while let e = current {
            if e.domain == NSPOSIXErrorDomain, let text = strerror(Int32(e.code)) { return String(cString: text).lowercased() }
            current = e.userInfo[NSUnderlyingErrorKey] as? NSError
        }
        switch CocoaError.Code(rawValue: (error as NSError).code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file"
        case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
        case .fileWriteVolumeReadOnly: return "read-only file system"
        case .fileWriteOutOfSpace: return "no space left on the device"
        default:
            let text = (error as NSError).localizedDescription
            return text.hasSuffix(".") ? String(text.dropLast()) : text
        }
    }
}
