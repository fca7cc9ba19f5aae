#if canImport(CNGHTTP2) && os(Linux)
import Foundation
import RichPushCore

/// One request of an `HTTP2Client` from the moment it is handed over until it ends in exactly one
/// of three states (see `HTTP2Client`): answered, not processed, or unknown. Loop thread only
/// once handed over.
final class HTTP2Stream {
    /// Where the request's end goes.
    enum Completion {
        case single(CheckedContinuation<TransportResponse, any Error>)
        case batch(HTTP2Batch, Int)
    }

    let request: TransportRequest
    let endpoint: HTTP2Endpoint
    /// `:path` (with the query) is `pathSource`'s UTF-8 from byte `pathStart` on: the request's
    /// URL itself, so no string is made per request.
    let pathSource: String
    let pathStart: Int
    private let completion: Completion
    /// Header fields of the request, as the connection encodes them (shared by a batch's streams).
    let headerBlock: HTTP2HeaderBlock

    // Set by the connection that carries it.
    /// The HTTP/2 stream id on its connection (0 until submitted).
    var streamID: Int32 = 0
    /// Its request HEADERS were handed to the socket's buffer: the server may have it from now on.
    var written = false
    /// When it was submitted on a connection (`HTTP2Clock`), for the request timeout.
    var submittedAt: UInt64 = 0
    /// The request timed out and was cancelled (RST_STREAM CANCEL): it ends `unknown`.
    var timedOut = false
    /// Times the request was found not processed and queued again.
    var resends = 0
    /// How far the body has been handed to nghttp2 (bytes).
    var bodyOffset = 0

    // The answer.
    var status: Int?
    var headers: [String: String] = [:]
    var body = Data()
    var bodyLimit: Int
    var bodyTruncated = false
    private(set) var isFinished = false

    init(
        request: TransportRequest, endpoint: HTTP2Endpoint, pathSource: String, pathStart: Int, headerBlock: HTTP2HeaderBlock,
        completion: Completion, bodyLimit: Int
    ) {
        self.request = request
        self.endpoint = endpoint
        self.pathSource = pathSource
        self.pathStart = pathStart
        self.headerBlock = headerBlock
        self.completion = completion
        self.bodyLimit = bodyLimit
    }

    /// Keeps up to `bodyLimit` bytes of the answer's body; marks the rest as cut.
    func appendBody(_ bytes: UnsafeRawBufferPointer) {
        let room = max(0, bodyLimit - body.count)
        let kept = min(room, bytes.count)
        if kept > 0, let base = bytes.baseAddress { body.append(base.assumingMemoryBound(to: UInt8.self), count: kept) }
        if kept < bytes.count { bodyTruncated = true }
    }

    /// Ends the request with its answer or failure (once; later calls do nothing).
    func finish(_ result: Result<TransportResponse, any Error>) {
        guard !isFinished else { return }
        isFinished = true
        switch completion {
        case .single(let continuation):
            continuation.resume(with: result)
        case .batch(let batch, let index):
            batch.complete(index, result)
        }
    }

    /// Ends a request that never became a stream (a bad URL, a client shut down).
    static func fail(_ completion: Completion, _ error: any Error) {
        switch completion {
        case .single(let continuation): continuation.resume(throwing: error)
        case .batch(let batch, let index): batch.complete(index, .failure(error))
        }
    }

    /// The answer read so far, as a response (the stream has a `:status`).
    func response() -> TransportResponse {
        var response = TransportResponse(status: status ?? 0, headers: headers, body: body, httpVersion: 2)
        response.bodyTruncated = bodyTruncated
        return response
    }
}

/// The results of one `HTTP2Client.send(batch:)`, resumed once when the last request has ended.
/// Loop thread only.
final class HTTP2Batch {
    private var results: [Result<TransportResponse, any Error>?]
    private var remaining: Int
    private let continuation: CheckedContinuation<[Result<TransportResponse, any Error>], Never>

    init(count: Int, continuation: CheckedContinuation<[Result<TransportResponse, any Error>], Never>) {
        results = Array(repeating: nil, count: count)
        remaining = count
        self.continuation = continuation
    }

    func complete(_ index: Int, _ result: Result<TransportResponse, any Error>) {
        guard results[index] == nil else { return }
        results[index] = result
        remaining -= 1
        if remaining == 0 {
            continuation.resume(returning: results.map { $0 ?? .failure(RichPushError(code: .transport, message: "no result")) })
        }
    }
}
#endif
