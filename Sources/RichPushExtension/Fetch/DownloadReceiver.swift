import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Receives one response for `MediaFetcher`: applies the status, size and type rules while the
/// bytes stream in, and writes the body to a fresh file once its first bytes say it is media.
///
/// Called serially by a transport (through `TransferGate`), then read by the fetcher after the
/// transport returned, so it needs no lock of its own.
final class DownloadReceiver: MediaResponseReceiver, @unchecked Sendable {
    /// What the response turned out to be.
    enum Verdict: Equatable {
        /// Still reading (or finished without a rule firing).
        case open
        /// A 3xx with a `Location` to follow.
        case redirect(String)
        /// A rule stopped it.
        case failed(FetchFailure)
    }

    private let folder: URL
    private let formats: Set<RichPushMediaFormat>
    private let sourceByteLimit: Int?
    private(set) var verdict: Verdict = .open
    private(set) var statusCode: Int?
    private var contentLength: Int?
    private var contentType: String?
    private var cacheControl: String?
    private var prefix: [UInt8] = []
    private var format: RichPushMediaFormat?
    private var sniffed: RichPushMediaFormat?
    private var limit = RichPushMediaKind.largestMaximumBytes
    private var descriptor: Int32 = -1
    private var file: URL?
    private(set) var bytes = 0

    /// - Parameters:
    ///   - folder: the per-notification folder (created on the first write).
    ///   - formats: the formats to accept (Apple's table, and any opted into).
    ///   - sourceByteLimit: see `MediaFetcher.sourceByteLimit` (`nil`: Apple's rules).
    init(folder: URL, formats: Set<RichPushMediaFormat> = Set(RichPushMediaFormat.appleAttachmentFormats), sourceByteLimit: Int? = nil) {
        self.folder = folder
        self.formats = formats
        self.sourceByteLimit = sourceByteLimit
        if let sourceByteLimit { limit = sourceByteLimit }
    }

    func receive(head: MediaResponseHead) -> Bool {
        statusCode = head.statusCode
        switch head.statusCode {
        case 300..<400 where head.statusCode != 304:
            guard let location = head.location, !location.isEmpty else {
                verdict = .failed(FetchFailure(.httpStatus, "HTTP \(head.statusCode) without a Location header", httpStatus: head.statusCode))
                return false
            }
            verdict = .redirect(location)
            return false
        case 200..<300:
            break
        default:
            verdict = .failed(FetchFailure(.httpStatus, "the media server answered HTTP \(head.statusCode)", httpStatus: head.statusCode))
            return false
        }
        if let encoding = head.headers["content-encoding"]?.trimmingCharacters(in: .whitespaces).lowercased(),
            !encoding.isEmpty, encoding != "identity"
        {
            // The request asked for identity: limits count the bytes received, and a compressed
            // body can expand a thousandfold (a 1 MB gzip to 1 GB) in a decoding client.
            return fail(
                .notMedia,
                "the server sent the media with Content-Encoding: \(encoding) although the request asked for identity; serve the file uncompressed"
            )
        }
        if head.headers["content-length"] != nil, head.contentLength == nil {
            // A length past 2^63 (or not a number) cannot be held to the limits: refuse it
            // rather than read to the connection's close.
            return fail(
                .network, "the server sent Content-Length '\(head.headers["content-length"] ?? "")', not a byte count RichPush can use; send the file's size")
        }
        contentLength = head.contentLength
        contentType = head.headers["content-type"]
        cacheControl = head.headers["cache-control"]
        if let contentLength, contentLength > limit {
            let which = sourceByteLimit == nil ? "the largest attachment limit (\(limit) bytes, Apple: video 50 MB)" : "the source limit (\(limit) bytes)"
            return fail(.tooLarge, "Content-Length \(contentLength) bytes is over \(which)")
        }
        return true
    }

    func receive(body chunk: UnsafeRawBufferPointer) -> Bool {
        guard verdict == .open else { return false }
        var rest = chunk[...]
        if format == nil {
            let take = min(RichPushMediaFormat.sniffLength - prefix.count, rest.count)
            prefix.append(contentsOf: rest.prefix(take))
            rest = rest.dropFirst(take)
            if prefix.count < RichPushMediaFormat.sniffLength { return true }
            guard decideFormat() else { return false }
        }
        return write(UnsafeRawBufferPointer(rebasing: rest))
    }

    /// Called after the transport returned normally: sniffs a short body, closes the file.
    /// - Returns: the media, or the failure (files removed).
    func complete(url: URL, redirects: Int) -> Result<RichPushDownloadedMedia, FetchFailure> {
        if case .failed(let failure) = verdict { return .failure(failure) }
        if format == nil, !decideFormat() {
            if case .failed(let failure) = verdict { return .failure(failure) }
        }
        closeFile()
        guard let file, let format else {
            return .failure(FetchFailure(.notMedia, "the response has no body", httpStatus: statusCode))
        }
        var media = RichPushDownloadedMedia(
            file: file, folder: folder, format: format, bytes: bytes, url: url,
            httpStatus: statusCode ?? 200, redirects: redirects
        )
        media.cacheControl = cacheControl
        return .success(media)
    }

    /// Closes and removes any file (the transfer failed or was abandoned).
    func discard() {
        closeFile()
        if let file { try? FileManager.default.removeItem(at: file) }
        file = nil
    }

    /// Sniffs the buffered first bytes, applies the kind's limit and opens the file.
    private func decideFormat() -> Bool {
        guard let sniffed = RichPushMediaFormat.sniff(prefix) else {
            let what = prefix.isEmpty ? "an empty body" : "not a media file"
            return fail(.notMedia, "the response is \(what) (content type \(contentTypeHint))")
        }
        self.sniffed = sniffed
        if let sourceByteLimit {
            return open(sniffed, limit: sourceByteLimit, kindName: sniffed.name)
        }
        guard let kind = sniffed.kind, formats.contains(sniffed) else {
            if RichPushMediaFormat.optInAttachmentFormats.contains(sniffed) {
                return fail(
                    .unsupportedFormat,
                    "\(sniffed.name) (\(sniffed.uniformTypeIdentifier)) is not in Apple's table of attachment types (additionalAttachmentFormats opts in)")
            }
            return fail(.unsupportedFormat, "\(sniffed.name) (\(sniffed.uniformTypeIdentifier)) is not an attachment type iOS accepts")
        }
        return open(sniffed, limit: kind.maximumBytes, kindName: kind.rawValue)
    }

    /// Applies the format's limit and opens the file.
    private func open(_ sniffed: RichPushMediaFormat, limit: Int, kindName: String) -> Bool {
        format = sniffed
        self.limit = limit
        if let contentLength, contentLength > limit {
            let whose = sourceByteLimit == nil ? "Apple's \(kindName) limit" : "the source limit"
            return fail(.tooLarge, "Content-Length \(contentLength) bytes is over \(whose) (\(limit) bytes)")
        }
        let name = "\(sniffed.kind?.rawValue ?? "source")-\(UUID().uuidString.lowercased()).\(sniffed.fileExtension)"
        let url = folder.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            return fail(.storage, "cannot create \(folder.path): \(error.localizedDescription)")
        }
        let fd = posixOpen(url.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else {
            return fail(.storage, "cannot create \(url.path): \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        file = url
        return prefix.withUnsafeBytes { write($0) }
    }

    private var contentTypeHint: String { contentType ?? "not given" }

    /// Appends bytes to the file, enforcing the kind's limit; stops at once when it is passed.
    private func write(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard !chunk.isEmpty else { return true }
        if bytes + chunk.count > limit {
            let kind = format?.kind?.rawValue ?? "media"
            return fail(.tooLarge, "the body passed Apple's \(kind) limit of \(limit) bytes while streaming")
        }
        var offset = 0
        while offset < chunk.count {
            guard let base = chunk.baseAddress else { break }
            let n = posixWrite(descriptor, base + offset, chunk.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return fail(.storage, "cannot write the media file: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        bytes += chunk.count
        return true
    }

    private func fail(_ reason: RichPushReasonCode, _ message: String) -> Bool {
        var failure = FetchFailure(reason, message, httpStatus: statusCode)
        failure.format = sniffed
        verdict = .failed(failure)
        discard()
        return false
    }

    private func closeFile() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }

    deinit {
        closeFile()
    }
}

/// `open(2)`, named apart from the receiver's own `open`.
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    #if canImport(Glibc)
    return Glibc.open(path, flags, mode)
    #else
    return Darwin.open(path, flags, mode)
    #endif
}

/// `write(2)`, named apart from the receiver's own `write`.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, buffer, count)
    #else
    return Darwin.write(fd, buffer, count)
    #endif
}
