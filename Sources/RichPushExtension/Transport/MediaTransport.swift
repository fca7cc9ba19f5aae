import Foundation

/// The HTTP layer under the pipeline: one request, no redirects followed, bytes streamed to a receiver.
///
/// Every rule (deadline, size limits, redirect policy, App Transport Security, sniffing, files)
/// lives above this protocol in `MediaFetcher`, so it is the same code whichever transport runs:
/// `CurlMediaTransport` (libcurl; Linux) or `URLSessionMediaTransport` (URLSession; iOS, and
/// FoundationNetworking on Linux for comparison).
///
/// A transport must:
/// - never follow redirects (a 3xx is reported as a response like any other);
/// - never decode `Content-Encoding` (ask for `identity`), so byte counts are the file's;
/// - call the receiver serially, and never after `fetch` has returned or thrown;
/// - stop the transfer as soon as the receiver returns `false`, and then return normally;
/// - give up after `MediaRequest.timeout` (throwing `MediaTransportError.timeout`), and return
///   promptly (throwing `.cancelled`) when the calling task is cancelled.
@_spi(RichPushInternal)
public protocol MediaTransport: Sendable {
    /// Performs one GET and streams the response to `receiver`.
    ///
    /// - Parameters:
    ///   - request: the URL and the wall-clock time left for the whole exchange.
    ///   - receiver: gets the response head, then the body in chunks; returning `false` stops the transfer.
    /// - Throws: `MediaTransportError` (`timeout`, `network`, `cancelled`).
    func fetch(_ request: MediaRequest, receiver: any MediaResponseReceiver) async throws

    /// Performs one POST of a small body and returns the status code (the response body is discarded).
    ///
    /// - Parameters:
    ///   - url: where to post.
    ///   - body: the request body.
    ///   - contentType: the `Content-Type` header value.
    ///   - timeout: the wall-clock limit for the whole exchange.
    /// - Returns: the HTTP status code.
    /// - Throws: `MediaTransportError` (`timeout`, `network`, `cancelled`).
    func post(to url: URL, body: Data, contentType: String, timeout: Duration) async throws -> Int
}

/// One media request.
@_spi(RichPushInternal)
public struct MediaRequest: Sendable, Equatable {
    /// The absolute http(s) URL, already normalised.
    public var url: URL
    /// Wall-clock time left for connect, headers and every byte of the body.
    public var timeout: Duration

    /// Makes a request.
    /// - Parameters:
    ///   - url: the URL.
    ///   - timeout: the time left.
    public init(url: URL, timeout: Duration) {
        self.url = url
        self.timeout = timeout
    }
}

/// The status line and headers of one response.
@_spi(RichPushInternal)
public struct MediaResponseHead: Sendable, Equatable {
    /// The HTTP status code, e.g. 200, 302, 404.
    public var statusCode: Int
    /// Header fields with lower-cased names (the last value wins for repeated fields).
    public var headers: [String: String]

    /// Makes a response head.
    /// - Parameters:
    ///   - statusCode: the status code.
    ///   - headers: the fields; names are lower-cased here.
    public init(statusCode: Int, headers: [String: String]) {
        self.statusCode = statusCode
        var lowered: [String: String] = [:]
        for (k, v) in headers { lowered[k.lowercased()] = v }
        self.headers = lowered
    }

    /// `Content-Length` in bytes, when present and valid.
    public var contentLength: Int? {
        headers["content-length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// The `Location` header (redirects), as sent.
    public var location: String? { headers["location"] }
}

/// Receives one response, synchronously, on the transport's thread.
@_spi(RichPushInternal)
public protocol MediaResponseReceiver: AnyObject, Sendable {
    /// The status line and headers arrived.
    /// - Parameter head: the response head.
    /// - Returns: `true` to read the body, `false` to stop now.
    func receive(head: MediaResponseHead) -> Bool

    /// A chunk of the body arrived.
    /// - Parameter bytes: the chunk, valid only during the call.
    /// - Returns: `true` to go on, `false` to stop the transfer at once.
    func receive(body bytes: UnsafeRawBufferPointer) -> Bool
}

/// Why a transport could not complete a request.
@_spi(RichPushInternal)
public struct MediaTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        /// The wall-clock limit passed.
        public static let timeout = Code(rawValue: "timeout")
        /// Connecting, TLS, or reading failed.
        public static let network = Code(rawValue: "network")
        /// The calling task was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
    }

    /// The code.
    public let code: Code
    /// What happened, from the transport.
    public let message: String

    /// Makes an error.
    /// - Parameters:
    ///   - code: the code.
    ///   - message: what happened.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

extension Duration {
    /// The duration in whole milliseconds, at least 1 (for APIs where 0 means "no limit").
    var wholeMillisecondsAtLeastOne: Int {
        let (s, atto) = components
        let ms = s * 1000 + atto / 1_000_000_000_000_000
        return Int(max(1, ms))
    }

    /// The duration in seconds as a `Double`.
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
