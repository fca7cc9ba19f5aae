import Foundation
@_spi(RichPushInternal) import RichPushCore
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
        try await InputFile.read(path)
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
                throw refuse("it cannot be created (\(FileProblem.reason(of: error)))")
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
}
