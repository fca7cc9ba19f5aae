import Foundation
import RichPushCore
import RichPushProvider
import RichPushServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `record-send --results FILE` (or `-`): per-token send results read as a stream and handed out
/// batch by batch (`RecordedSendBatches.Splitter`), so a file of any size is recorded in bounded
/// memory — at most one batch being filled and one waiting (each ≤ 1 MB, ≤ 10,000 results).
///
/// Two formats, told apart by the first byte that is not whitespace:
/// - JSON lines, as `richpush send` prints them (about 190 bytes a line): read line by line, any
///   number of lines; blank lines are skipped, CR before LF and blanks around a line are ignored.
/// - A JSON array of result objects: parsed whole, so it is read up to `maximumArrayBytes`.
///
/// Results whose token is not a device token (`richpush send` reports those `token_bad`, never
/// sent) are left out: the server would refuse the whole batch for them.
///
/// `@unchecked Sendable`: one caller at a time, each `nextBatch()` awaiting the thread it starts
/// before the next call, so its reading state is never touched by two threads at once.
final class SendResultsFile: @unchecked Sendable {
    /// The largest JSON array read, in bytes: an array is parsed whole (about 5× its size in
    /// memory), so larger result sets must come as JSON lines, which are streamed.
    static let maximumArrayBytes = 64 << 20
    /// The longest line accepted, in bytes (a result line of `richpush send` is about 190 bytes;
    /// a result larger than a 1 MB body could never be recorded anyway).
    static let maximumLineBytes = 1 << 20

    /// The file as named on the command line (`-` for standard input).
    let path: String
    /// Items read so far (lines holding a result, or array items).
    private(set) var itemsRead = 0
    /// Results kept so far (items with a device token).
    private(set) var resultsKept = 0
    /// Whether the file is a JSON array (known once the first byte is read).
    private(set) var isArray = false

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var line = 0
    private var started = false
    private var array: [RichPushJSONValue] = []
    private var arrayIndex = 0
    private var splitter = RecordedSendBatches.Splitter()

    /// Opens the file (or checks standard input).
    /// - Parameter path: the file, or `-` for standard input.
    /// - Throws: `RichPushError` `io` when it cannot be opened (missing, a directory, stdin closed).
    init(path: String) throws {
        self.path = path
        fd = try InputFile.open(path, what: "the results", option: "--results")
    }

    deinit {
        if path != "-" { _ = close(fd) }
    }

    /// The next batch of results, read on a thread of its own (reading a pipe blocks, and a
    /// cooperative-pool thread never may). Batches are the ones `RecordedSendBatches` makes.
    ///
    /// - Returns: the batch's result objects, or `nil` once the file is exhausted.
    /// - Throws: `RichPushError` naming the line (or item) that is not a result, or an I/O error.
    func nextBatch() async throws -> [RichPushJSONValue]? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[RichPushJSONValue]?, any Error>) in
            Thread { continuation.resume(with: Result { try self.nextBatchBlocking() }) }.start()
        }
    }

    /// `nextBatch()` on the calling thread.
    func nextBatchBlocking() throws -> [RichPushJSONValue]? {
        while let value = try nextItem() {
            guard let result = try Self.result(value, item: itemsRead, unit: isArray ? "item" : "line", file: InputFile.describe(path)) else { continue }
            resultsKept += 1
            if let full = try splitter.add(result) { return full }
        }
        return splitter.finish()
    }

    /// Why the file gave no result, for the message that says so.
    var emptyReason: String {
        let name = InputFile.describe(path)
        if itemsRead > 0 {
            return
                "none of the \(itemsRead) result(s) in \(name) names a device token (\(DeviceTokenRule.summary)): there is nothing to record"
        }
        if isArray { return "\(name) holds an empty JSON array ([]): there are no results to record" }
        return
            "\(name) holds no results: it is empty (give the JSON lines richpush send printed, one {\"token\", \"outcome\"} object a line, or a JSON array of them)"
    }

    // MARK: Reading

    /// The next parsed item (a line's object, or an array item), or `nil` at the end.
    private func nextItem() throws -> RichPushJSONValue? {
        if !started {
            started = true
            try detectFormat()
        }
        if isArray {
            guard arrayIndex < array.count else {
                array = []
                return nil
            }
            defer { arrayIndex += 1 }
            itemsRead += 1
            return array[arrayIndex]
        }
        while let bytes = try nextLine() {
            line += 1
            var slice = bytes[...]
            while let first = slice.first, first == 0x20 || first == 0x09 || first == 0x0D { slice = slice.dropFirst() }
            while let last = slice.last, last == 0x20 || last == 0x09 || last == 0x0D { slice = slice.dropLast() }
            if slice.isEmpty { continue }
            // `itemsRead` counts lines of the file here, so messages name the line.
            itemsRead = line
            do {
                return try RichPushJSONValue.parseStrictly(Data(slice))
            } catch let error as RichPushError {
                throw RichPushError(code: error.code, message: "\(InputFile.describe(path)) line \(line): \(error.message)")
            }
        }
        return nil
    }

    /// Reads until the first byte that is not whitespace; a `[` makes the file a JSON array, read whole.
    private func detectFormat() throws {
        while true {
            while start < buffer.count, [0x20, 0x09, 0x0D, 0x0A].contains(buffer[start]) { start += 1 }
            if start < buffer.count || atEnd { break }
            try fill()
        }
        guard start < buffer.count, buffer[start] == UInt8(ascii: "[") else { return }
        isArray = true
        while !atEnd {
            try fill()
            if buffer.count - start > Self.maximumArrayBytes {
                throw RichPushError(
                    code: .io,
                    message:
                        "\(InputFile.describe(path)) is a JSON array of more than \(Self.maximumArrayBytes >> 20) MiB; an array is read whole, so give larger result sets as JSON lines (one result a line, as richpush send prints them), which are read as a stream at any size"
                )
            }
        }
        let data = Data(buffer[start...])
        buffer = []
        start = 0
        guard let items = try RichPushJSONValue.parse(data).arrayValue else {
            throw RichPushError(code: .invalidJSON, message: "\(InputFile.describe(path)) is not a JSON array of results")
        }
        array = items
    }

    /// The next line's bytes without its LF (a copy: `buffer` moves on), or `nil` at the end of the file.
    private func nextLine() throws -> [UInt8]? {
        var searched = 0  // bytes after `start` known to hold no LF
        while true {
            if let newline = buffer[(start + searched)...].firstIndex(of: 0x0A) {
                let lineBytes = Array(buffer[start..<newline])
                start = newline + 1
                return lineBytes
            }
            if buffer.count - start > Self.maximumLineBytes {
                throw RichPushError(
                    code: .invalidPayload,
                    message:
                        "\(InputFile.describe(path)) line \(line + 1) is longer than \(Self.maximumLineBytes >> 20) MiB; a result line of richpush send is about 200 bytes: check that it is the right file"
                )
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let lineBytes = Array(buffer[start...])
                start = buffer.count
                return lineBytes
            }
            searched = buffer.count - start
            try fill()
        }
    }

    /// Appends the next chunk of the file to `buffer` (dropping the bytes already consumed).
    private func fill() throws {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
                return
            } else if n == 0 {
                atEnd = true
                return
            } else if errno != EINTR {
                throw InputFile.failure(path, what: "the results", option: "--results", errno: errno)
            }
        }
    }

    // MARK: Results

    /// One item as the server's result object ({token, outcome, status, reason, message_id,
    /// inactive_since}), or `nil` for a token that is not a device token.
    ///
    /// - Parameters:
    ///   - value: the parsed line or array item.
    ///   - item: its line (JSON lines) or position from 1 (array).
    ///   - unit: `line` or `item`, for messages.
    ///   - file: the file's name, for messages.
    /// - Returns: the result object, or `nil` when it is left out.
    /// - Throws: `RichPushError` `invalid_payload` when it lacks `token` or `outcome`.
    static func result(_ value: RichPushJSONValue, item: Int, unit: String, file: String) throws -> RichPushJSONValue? {
        guard let token = value["token"]?.stringValue, let outcome = value["outcome"]?.stringValue else {
            throw RichPushError(
                code: .invalidPayload, message: "\(file) \(unit) \(item): a result needs \"token\" and \"outcome\" (as richpush send prints them)")
        }
        // A token that is not one (richpush send reports it token_bad, never sent) is left out:
        // the server's rule (DeviceTokenRule) would refuse the whole batch for it.
        guard DeviceTokenRule.canonical(token, provider: nil) != nil else { return nil }
        var result: [String: RichPushJSONValue] = ["token": .string(token), "outcome": .string(outcome)]
        if let status = value["status"] { result["status"] = status }
        if let reason = value["reason"], reason != .null { result["reason"] = reason }
        if let id = value["message_id"] ?? value["apns-id"] ?? value["apns_id"], id != .null { result["message_id"] = id }
        if outcome == "token_inactive", let since = value["inactive_since"] ?? value["timestamp"], since != .null { result["inactive_since"] = since }
        return .object(result)
    }
}
