import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Whole-file writes that readers never see half done: write a temporary file in the same
/// directory, then `rename(2)` it over the destination (atomic within one file system).
enum AtomicFile {
    /// Writes `data` to `url` atomically.
    /// - Throws: `RichPushError` `io` naming the file, the reason and what to do (`FileProblem`).
    static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw FileProblem.error(.write, path: url.path, cause: error)
        }
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw FileProblem.error(.write, path: url.path, errno: code)
        }
    }

    /// Reads `url`, or `nil` when it does not exist or cannot be read.
    static func read(_ url: URL) -> Data? {
        try? Data(contentsOf: url)
    }
}
