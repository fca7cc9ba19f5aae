import CMicroHTTPD
import Foundation
import RichPushCore

/// A threaded HTTP/1.1 server on libmicrohttpd: an internal epoll thread pool (one thread per
/// core, at least 2) calls `handler` with each complete request.
public final class HTTPServer: @unchecked Sendable {
    /// Handles a request on a server thread. Returns `true` when it answered before returning,
    /// `false` when it will answer later from another thread.
    public typealias Handler = @Sendable (HTTPRequest) -> Bool

    /// Boxes the handler for the C context pointer.
    private final class Context: @unchecked Sendable {
        let handler: Handler
        let observe: @Sendable (Int, Double) -> Void
        init(handler: @escaping Handler, observe: @escaping @Sendable (Int, Double) -> Void) {
            self.handler = handler
            self.observe = observe
        }
    }

    private let context: Context
    private var server: OpaquePointer?
    private let lock = NSLock()
    /// The bound TCP port.
    public let port: Int

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - host: an IPv4 or IPv6 literal (`localhost` = 127.0.0.1).
    ///   - port: the TCP port; 0 picks a free one.
    ///   - threads: server threads (at least 2).
    ///   - maximumBody: the largest body kept, in bytes; longer ones are flagged `bodyTooLarge`.
    ///   - observe: called for every response with its status and latency in seconds.
    ///   - handler: the request handler.
    /// - Throws: `RichPushError` `listen` when the address cannot be bound.
    public init(
        host: String, port: Int, threads: Int, maximumBody: Int, observe: @escaping @Sendable (Int, Double) -> Void,
        handler: @escaping Handler
    ) throws {
        let context = Context(handler: handler, observe: observe)
        self.context = context
        var message = [CChar](repeating: 0, count: 256)
        let callback: rp_handler = { rawContext, rawRequest in
            guard let rawContext, let rawRequest else { return 1 }
            let context = Unmanaged<Context>.fromOpaque(rawContext).takeUnretainedValue()
            let request = HTTPRequest(raw: rawRequest, onRespond: context.observe)
            return context.handler(request) ? 1 : 0
        }
        guard (0...65535).contains(port) else {
            throw RichPushError(code: .listen, message: "port \(port) is out of range 0…65535")
        }
        let started = message.withUnsafeMutableBufferPointer { buffer in
            rp_server_start(
                host, UInt16(port), UInt32(max(2, threads)), maximumBody, callback,
                Unmanaged.passUnretained(context).toOpaque(), buffer.baseAddress, buffer.count
            )
        }
        guard let started else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw RichPushError(code: .listen, message: "cannot start the HTTP server: \(text)")
        }
        server = started
        self.port = Int(rp_server_port(started))
    }

    /// Gives requests to the paths matching `path` a larger body bound than the server's (e.g.
    /// `POST /v1/pushes`, whose device-token list is far over a receipt's 8 KB).
    ///
    /// - Parameters:
    ///   - path: path patterns separated by `|`, `*` standing for one path segment, e.g.
    ///     `/v1/pushes|/v1/pushes/*/sends` (shorter than 128 bytes).
    ///   - maximumBody: the bound for that path, in bytes.
    public func allowLargeBody(path: String, maximumBody: Int) {
        lock.withLock { if let server { rp_server_set_large_body(server, path, maximumBody) } }
    }

    /// Stops accepting connections; requests in flight continue.
    public func quiesce() {
        lock.withLock { if let server { rp_server_quiesce(server) } }
    }

    /// Requests begun and not yet completed.
    public var inFlight: Int {
        lock.withLock { server.map { Int(rp_server_in_flight($0)) } ?? 0 }
    }

    /// Stops the server (closes every connection). Answer every dispatched request first.
    public func stop() {
        lock.withLock {
            if let server { rp_server_stop(server) }
            server = nil
        }
    }

    deinit { stop() }
}
