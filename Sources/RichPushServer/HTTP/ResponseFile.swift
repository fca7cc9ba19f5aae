import Foundation
@_spi(RichPushInternal) import RichPushCore

#if canImport(Glibc)
import Glibc
#endif

/// A response body in a temporary file (an export of a million rows): written by the endpoint a
/// buffer at a time, then sent by libmicrohttpd from the file as the client reads it, so neither
/// side holds it in memory. The file is unlinked as soon as it is made (nothing is left on disk
/// after the answer, or after a crash); the open descriptor keeps it until the response is done.
public final class ResponseFile: Sendable {
    private let descriptor: Locked<Int32?>
    /// The body's length, bytes.
    public let length: Int

    private init(descriptor: Int32, length: Int) {
        self.descriptor = Locked(descriptor)
        self.length = length
    }

    /// Makes the file and hands `write` a writer for it (buffered: 256 KB at a time).
    ///
    /// - Parameter write: writes the body with `Writer.write(_:)`.
    /// - Returns: the file, ready to be sent from its start.
    /// - Throws: `RichPushError` `io` when the temporary file cannot be made or written, or what
    ///   `write` threw (the file is then closed).
    public static func make(_ write: (Writer) throws -> Void) throws -> ResponseFile {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/richpush-export-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else {
            throw RichPushError(code: .io, message: "cannot make a temporary file in \(directory) for the export: \(String(cString: strerror(errno)))")
        }
        template.withUnsafeBufferPointer { buffer in _ = buffer.baseAddress.map { unlink($0) } }
        let writer = Writer(descriptor: fd)
        do {
            try write(writer)
            try writer.flush()
        } catch {
            close(fd)
            throw error
        }
        guard lseek(fd, 0, SEEK_SET) == 0 else {
            close(fd)
            throw RichPushError(code: .io, message: "cannot rewind the export's temporary file")
        }
        return ResponseFile(descriptor: fd, length: writer.written)
    }

    /// Takes the descriptor (once): whoever takes it closes it (the HTTP layer's shim does).
    ///
    /// - Returns: the descriptor, `nil` when taken before.
    func take() -> Int32? {
        descriptor.withLock { fd in
            defer { fd = nil }
            return fd
        }
    }

    /// The whole body (for an answer made in process, without a socket: tests).
    ///
    /// - Returns: the bytes.
    public func readAll() -> Data {
        guard let fd = take() else { return Data() }
        defer { close(fd) }
        var out = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            out.append(buffer, count: n)
        }
        return out
    }

    deinit {
        if let fd = take() { close(fd) }
    }

    /// Writes to the file through a buffer.
    public final class Writer {
        private let descriptor: Int32
        private var buffer = Data()
        /// Bytes written so far.
        public private(set) var written = 0
        /// The buffer's size before it is written out, bytes.
        static let bufferBytes = 262_144

        init(descriptor: Int32) {
            self.descriptor = descriptor
            buffer.reserveCapacity(Self.bufferBytes)
        }

        /// Appends text.
        ///
        /// - Parameter text: UTF-8 text.
        /// - Throws: `RichPushError` `io` when the disk refuses it.
        public func write(_ text: String) throws {
            buffer.append(contentsOf: text.utf8)
            written += text.utf8.count
            if buffer.count >= Self.bufferBytes { try flush() }
        }

        /// Writes the buffer out.
        ///
        /// - Throws: `RichPushError` `io` when the disk refuses it.
        func flush() throws {
            var offset = 0
            while offset < buffer.count {
                let n = buffer.withUnsafeBytes { raw in Glibc.write(descriptor, raw.baseAddress?.advanced(by: offset), buffer.count - offset) }
                guard n > 0 else { throw RichPushError(code: .io, message: "cannot write the export's temporary file: \(String(cString: strerror(errno)))") }
                offset += n
            }
            buffer.removeAll(keepingCapacity: true)
        }
    }
}
