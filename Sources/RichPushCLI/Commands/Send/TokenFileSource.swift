import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushProvider

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `send --tokens FILE` (or `-`): device tokens streamed from a file or standard input, one per
/// line, read by a thread of its own a little ahead of the sender (at most `queuedChunks` chunks
/// of `chunkSize` tokens wait), so memory stays flat from ten thousand to ten million tokens.
///
/// Lines: blanks and tabs around a token are ignored, as are blank lines, `#` comments and CR
/// before LF; a line with non-ASCII bytes is trimmed by Unicode whitespace rules.
///
/// `@unchecked Sendable`: the reading thread and the sender touch the queued chunks, the state and
/// the waiter only under `condition` (a condition variable, which `Locked` cannot replace).
final class TokenFileSource: DeviceTokenSource, @unchecked Sendable {
    /// Tokens per chunk handed to the sender.
    static let chunkSize = 4096
    /// Chunks read ahead at most.
    static let queuedChunks = 4
    /// The longest line accepted, in bytes (a device token is at most 400 hex digits; an FCM
    /// registration token a few hundred characters).
    static let maximumLineBytes = 65_536

    private let path: String
    private let condition = NSCondition()
    private var ready: [[String]] = []
    private var pending: ArraySlice<String> = []
    private var finished = false
    private var failure: RichPushError?
    private var waiter: CheckedContinuation<Void, Never>?
    private var delivered = 0

    /// Opens the file (or checks standard input) and starts reading.
    /// - Parameter path: the file, or `-`.
    /// - Throws: `RichPushError` `io` when it cannot be opened (missing, a directory, stdin closed).
    init(path: String) throws {
        self.path = path
        let fd = try InputFile.open(path, what: "the tokens file", option: "--tokens")
        let thread = Thread { [self] in
            self.produce(fd)
            if path != "-" { _ = close(fd) }
        }
        thread.name = "richpush-tokens"
        thread.start()
    }

    /// Tokens handed out so far.
    var count: Int { condition.withLock { delivered } }

    func nextTokens(maximumCount: Int) async throws -> [String] {
        while true {
            switch take(maximumCount) {
            case .tokens(let tokens): return tokens
            case .failed(let error): throw error
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    condition.lock()
                    if ready.isEmpty, !finished {
                        waiter = continuation
                        condition.unlock()
                    } else {
                        condition.unlock()
                        continuation.resume()
                    }
                }
            }
        }
    }

    private enum Take {
        case tokens([String])
        case failed(RichPushError)
        case wait
    }

    /// Takes up to `maximumCount` tokens read so far, under the lock.
    private func take(_ maximumCount: Int) -> Take {
        condition.lock()
        defer { condition.unlock() }
        if pending.isEmpty, !ready.isEmpty {
            pending = ready.removeFirst()[...]
            condition.broadcast()
        }
        if !pending.isEmpty {
            let taken = pending.prefix(max(1, maximumCount))
            pending = pending.dropFirst(taken.count)
            delivered += taken.count
            return .tokens(Array(taken))
        }
        if finished { return failure.map(Take.failed) ?? .tokens([]) }
        return .wait
    }

    /// The reading thread: parses lines into chunks, waits while `queuedChunks` are unread.
    private func produce(_ fd: Int32) {
        var chunk: [String] = []
        chunk.reserveCapacity(Self.chunkSize)
        func push(_ tokens: [String], last: Bool = false, error: RichPushError? = nil) {
            condition.lock()
            while ready.count >= Self.queuedChunks, !last { condition.wait() }
            if !tokens.isEmpty { ready.append(tokens) }
            if last {
                finished = true
                failure = error
            }
            let resumed = waiter
            waiter = nil
            condition.unlock()
            resumed?.resume()
        }
        do {
            try Self.readTokens(fd, path: path) { token in
                chunk.append(token)
                if chunk.count == Self.chunkSize {
                    push(chunk)
                    chunk = []
                    chunk.reserveCapacity(Self.chunkSize)
                }
            }
            push(chunk, last: true)
        } catch {
            push(chunk, last: true, error: (error as? RichPushError) ?? RichPushError(code: .io, message: "cannot read the tokens: \(error)"))
        }
    }

    /// Counts the tokens of a regular file without keeping them (for the progress bar's total);
    /// `nil` for standard input or anything that is not a regular file.
    /// - Parameter path: the file, or `-`.
    /// - Returns: the number of tokens.
    /// - Throws: `RichPushError` `io` when the file cannot be read.
    static func countTokens(_ path: String) async throws -> Int? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int?, any Error>) in
            Thread {
                continuation.resume(
                    with: Result {
                        guard path != "-" else { return nil }
                        let fd = try InputFile.open(path, what: "the tokens file", option: "--tokens")
                        defer { _ = close(fd) }
                        var info = stat()
                        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
                        var count = 0
                        try readTokens(fd, path: path) { _ in count += 1 }
                        return count
                    })
            }.start()
        }
    }

    /// Reads `fd` to its end, handing over each line's token (the one loop behind both the
    /// streaming reader and `countTokens`).
    /// - Parameters:
    ///   - fd: the open file or standard input.
    ///   - path: the path, for messages.
    ///   - emit: called with each token, in file order.
    /// - Throws: `RichPushError` `io` for a read error or a line over `maximumLineBytes`.
    private static func readTokens(_ fd: Int32, path: String, emit: (String) -> Void) throws {
        var parser = TokenLineParser()
        var buffer = [UInt8](repeating: 0, count: 262_144)
        while true {
            let n = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw InputFile.failure(path, what: "the tokens file", option: "--tokens", errno: errno)
            }
            if n == 0 { break }
            try buffer.withUnsafeBufferPointer { bytes in
                try parser.feed(UnsafeBufferPointer(rebasing: bytes[0..<n]), emit: emit)
            }
        }
        parser.finish(emit: emit)
    }
}

/// Splits bytes into device-token lines across read boundaries (see `TokenFileSource`).
struct TokenLineParser {
    private var carry: [UInt8] = []
    private var line = 0

    /// Feeds the next bytes; emits each complete line's token.
    /// - Throws: `RichPushError` `io` for a line over `TokenFileSource.maximumLineBytes`.
    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, emit: (String) -> Void) throws {
        var start = 0
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x0A || b == 0x0D {
                if carry.isEmpty {
                    Self.token(UnsafeBufferPointer(rebasing: bytes[start..<i]), emit: emit)
                } else {
                    carry.append(contentsOf: bytes[start..<i])
                    try checkLength()
                    carry.withUnsafeBufferPointer { Self.token($0, emit: emit) }
                    carry.removeAll(keepingCapacity: true)
                }
                if b == 0x0A { line += 1 }
                start = i + 1
            }
            i += 1
        }
        carry.append(contentsOf: bytes[start..<bytes.count])
        try checkLength()
    }

    /// Emits the last line when the input does not end with a newline.
    mutating func finish(emit: (String) -> Void) {
        carry.withUnsafeBufferPointer { Self.token($0, emit: emit) }
        carry.removeAll()
    }

    private func checkLength() throws {
        if carry.count > TokenFileSource.maximumLineBytes {
            throw RichPushError(
                code: .io,
                message: "line \(line + 1) of the tokens is over \(TokenFileSource.maximumLineBytes / 1024) KiB; give one device token per line")
        }
    }

    /// The token on one line, if any: blanks trimmed, blank lines and `#` comments skipped.
    private static func token(_ line: UnsafeBufferPointer<UInt8>, emit: (String) -> Void) {
        func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        var start = 0, end = line.count
        while start < end, isBlank(line[start]) { start += 1 }
        while end > start, isBlank(line[end - 1]) { end -= 1 }
        guard start < end, line[start] != UInt8(ascii: "#") else { return }
        let trimmed = UnsafeBufferPointer(rebasing: line[start..<end])
        if trimmed.allSatisfy({ $0 < 0x80 }) {
            emit(String(decoding: trimmed, as: UTF8.self))
        } else {
            let text = String(decoding: trimmed, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if !text.isEmpty, !text.hasPrefix("#") { emit(text) }
        }
    }
}
