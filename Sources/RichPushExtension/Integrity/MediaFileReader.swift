import Foundation

/// Reads a media file front to back through a 64 KB buffer, so checking a 50 MB video never
/// holds more than that in memory (the extension has about 24 MB in all).
///
/// Every read names what it reads; running past the end throws `truncated` with that name.
final class MediaFileReader {
    /// The file's size in bytes.
    let size: Int
    /// The format's name, for messages.
    let formatName: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    private var index = 0
    private static let chunkSize = 64 * 1024

    /// Opens a file.
    /// - Parameters:
    ///   - url: the file.
    ///   - formatName: e.g. `JPEG`, for messages.
    /// - Throws: `unreadable` when it cannot be opened.
    init(url: URL, formatName: String) throws(RichPushMediaIntegrityError) {
        self.formatName = formatName
        do {
            handle = try FileHandle(forReadingFrom: url)
            size = Int(try handle.seekToEnd())
            try handle.seek(toOffset: 0)
        } catch {
            throw RichPushMediaIntegrityError(.unreadable, "\(formatName): cannot read \(url.lastPathComponent): \(error.localizedDescription)")
        }
    }

    deinit {
        try? handle.close()
    }

    /// The offset of the next byte.
    var position: Int { bufferStart + index }
    /// Bytes left after `position`.
    var remaining: Int { size - position }
    /// Whether every byte has been read.
    var atEnd: Bool { position >= size }

    /// A `truncated` error for `what`.
    func truncated(_ what: String) -> RichPushMediaIntegrityError {
        RichPushMediaIntegrityError(
            .truncated, "\(formatName): the file ends at byte \(size) inside \(what) (cut short: an interrupted download or a server that sent less)")
    }

    /// A `corrupt` error.
    func corrupt(_ message: String) -> RichPushMediaIntegrityError {
        RichPushMediaIntegrityError(.corrupt, "\(formatName): \(message)")
    }

    private func fill() throws(RichPushMediaIntegrityError) -> Bool {
        bufferStart += buffer.count
        index = 0
        do {
            let data = try handle.read(upToCount: Self.chunkSize) ?? Data()
            buffer = [UInt8](data)
        } catch {
            buffer = []
            throw RichPushMediaIntegrityError(.unreadable, "\(formatName): reading failed at byte \(bufferStart): \(error.localizedDescription)")
        }
        return !buffer.isEmpty
    }

    /// The next byte, or `nil` at the end of the file.
    func nextByte() throws(RichPushMediaIntegrityError) -> UInt8? {
        if index >= buffer.count {
            guard try fill() else { return nil }
        }
        let b = buffer[index]
        index += 1
        return b
    }

    /// The next byte.
    func byte(_ what: @autoclosure () -> String) throws(RichPushMediaIntegrityError) -> UInt8 {
        guard let b = try nextByte() else { throw truncated(what()) }
        return b
    }

    /// The next `count` bytes.
    func bytes(_ count: Int, _ what: @autoclosure () -> String) throws(RichPushMediaIntegrityError) -> [UInt8] {
        guard count <= remaining else { throw truncated(what()) }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            if index >= buffer.count {
                guard try fill() else { throw truncated(what()) }
            }
            let take = min(count - out.count, buffer.count - index)
            out.append(contentsOf: buffer[index..<index + take])
            index += take
        }
        return out
    }

    /// Skips `count` bytes (seeking when they are not buffered).
    func skip(_ count: Int, _ what: @autoclosure () -> String) throws(RichPushMediaIntegrityError) {
        guard count >= 0, count <= remaining else { throw truncated(what()) }
        try seek(to: position + count)
    }

    /// Moves to `offset` (at most the file's size).
    func seek(to offset: Int) throws(RichPushMediaIntegrityError) {
        let target = min(max(0, offset), size)
        if target >= bufferStart && target < bufferStart + buffer.count {
            index = target - bufferStart
            return
        }
        do {
            try handle.seek(toOffset: UInt64(target))
        } catch {
            throw RichPushMediaIntegrityError(.unreadable, "\(formatName): seeking to byte \(target) failed: \(error.localizedDescription)")
        }
        bufferStart = target
        buffer = []
        index = 0
    }

    /// Reads `count` bytes, passing each buffered run to `body` (for checksums), without
    /// collecting them.
    func stream(_ count: Int, _ what: @autoclosure () -> String, _ body: (ArraySlice<UInt8>) -> Void) throws(RichPushMediaIntegrityError) {
        guard count <= remaining else { throw truncated(what()) }
        var left = count
        while left > 0 {
            if index >= buffer.count {
                guard try fill() else { throw truncated(what()) }
            }
            let take = min(left, buffer.count - index)
            body(buffer[index..<index + take])
            index += take
            left -= take
        }
    }

    func u16be(_ what: @autoclosure () -> String) throws(RichPushMediaIntegrityError) -> Int {
        let b = try bytes(2, what())
        return Int(b[0]) << 8 | Int(b[1])
    }

    func u16le(_ what: @autoclosure () -> String) throws(RichPushMediaIntegrityError) -> Int {
        let b = try bytes(2, what())
        return Int(b[1]) << 8 | Int(b[0])
    }

    func u32be(_ what: @autoclosure () -> String) throws(RichPushMediaIntegrityError) -> Int {
        let b = try bytes(4, what())
        return Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
    }

    func u32le(_ what: @autoclosure () -> String) throws(RichPushMediaIntegrityError) -> Int {
        let b = try bytes(4, what())
        return Int(b[3]) << 24 | Int(b[2]) << 16 | Int(b[1]) << 8 | Int(b[0])
    }

    func u64be(_ what: @autoclosure () -> String) throws(RichPushMediaIntegrityError) -> UInt64 {
        let b = try bytes(8, what())
        return b.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// Four bytes as text (a chunk or box type), e.g. `moov`.
    func fourCC(_ what: @autoclosure () -> String) throws(RichPushMediaIntegrityError) -> String {
        MediaFileReader.text(try bytes(4, what()))
    }

    /// Bytes as printable ASCII (others as `?`).
    static func text(_ bytes: [UInt8]) -> String {
        String(bytes.map { (0x20...0x7E).contains($0) ? Character(Unicode.Scalar($0)) : "?" })
    }
}
