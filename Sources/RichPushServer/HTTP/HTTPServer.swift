import CMicroHTTPD
import Foundation
@_spi(RichPushInternal) import RichPushCore

/// A threaded HTTP/1.1 server on libmicrohttpd: an internal epoll thread pool (one thread per
/// core, at least 2) asks `gate` about each request as soon as its headers are in (before any body
/// byte is read), then runs `handler` on each complete request in a task and sends what it
/// returns: every request is answered exactly once, and only here. Meanwhile the connection is
/// suspended (libmicrohttpd's suspend/resume stays inside this file and the shim), so no server
/// thread waits for an answer.
// @unchecked: holds the C server's pointer, whose state is atomics (and `stopped` a Locked)
public final class HTTPServer: @unchecked Sendable {
    /// Decides, from the request line and headers alone, whether to read the body and how much.
    public typealias Gate = @Sendable (ServerRequest) -> HTTPAdmission
    /// Answers a complete request (run in a task off the server's threads).
    public typealias Handler = @Sendable (ServerRequest) async -> ServerResponse

    /// Boxes the callbacks for the C context pointer.
    private final class Context: Sendable {
        let gate: Gate
        let handler: Handler
        let observe: @Sendable (Int, Double) -> Void
        init(gate: @escaping Gate, handler: @escaping Handler, observe: @escaping @Sendable (Int, Double) -> Void) {
            self.gate = gate
            self.handler = handler
            self.observe = observe
        }
    }

    private let context: Context
    /// The C server: started in `init`, stopped by `stop()`, freed in `deinit`; its counters are
    /// atomics, readable without a lock from any thread (a server thread in the gate included,
    /// while `stop()` waits for those threads).
    private let server: OpaquePointer
    private let stopped = Locked(false)
    /// The bound TCP port.
    public let port: Int
    /// The limits the server runs with.
    public let limits: ConnectionLimits

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - host: an IPv4 or IPv6 literal (`localhost` = 127.0.0.1).
    ///   - port: the TCP port; 0 picks a free one.
    ///   - threads: server threads (at least 2).
    ///   - limits: connection caps, deadlines and per-connection memory.
    ///   - observe: called for every response with its status and latency in seconds.
    ///   - gate: decides on each request from its line and headers (auth, body bound…).
    ///   - handler: the request handler, called once the body is in.
    /// - Throws: `RichPushError` `listen` when the address cannot be bound.
    public init(
        host: String, port: Int, threads: Int, limits: ConnectionLimits = ConnectionLimits(),
        observe: @escaping @Sendable (Int, Double) -> Void, gate: @escaping Gate, handler: @escaping Handler
    ) throws {
        let context = Context(gate: gate, handler: handler, observe: observe)
        self.context = context
        self.limits = limits
        var message = [CChar](repeating: 0, count: 256)
        let gateCallback: rp_gate = { rawContext, rawRequest, maximumBody in
            guard let rawContext, let rawRequest, let maximumBody else { return 0 }
            let context = Unmanaged<Context>.fromOpaque(rawContext).takeUnretainedValue()
            let request = MicroHTTPDRequest(raw: rawRequest, onRespond: context.observe)
            switch context.gate(request.read(body: false)) {
            case .read(let bound):
                maximumBody.pointee = max(0, bound)
                return 1
            case .refuse(let response):
                request.respond(response)
                return 0
            }
        }
        let callback: rp_handler = { rawContext, rawRequest in
            guard let rawContext, let rawRequest else { return 1 }
            let context = Unmanaged<Context>.fromOpaque(rawContext).takeUnretainedValue()
            let request = MicroHTTPDRequest(raw: rawRequest, onRespond: context.observe)
            let complete = request.read(body: true)
            let handler = context.handler
            // Answered from the task; the shim suspends the connection until then (an answer
            // arriving before this callback returns waits on the request's lock).
            Task { request.respond(await handler(complete)) }
            return 0
        }
        guard (0...65535).contains(port) else {
            throw RichPushError(code: .listen, message: "port \(port) is out of range 0…65535")
        }
        var raw = rp_limits(
            max_connections: UInt32(clamping: limits.maximumConnections),
            max_connections_per_ip: UInt32(clamping: limits.maximumConnectionsPerIP),
            idle_timeout_seconds: UInt32(clamping: limits.idleTimeoutSeconds),
            header_timeout_ms: UInt32(clamping: Int((limits.headerTimeoutSeconds * 1000).rounded())),
            min_body_rate: UInt32(clamping: limits.minimumBodyBytesPerSecond),
            connection_memory: max(4_096, limits.connectionMemoryBytes)
        )
        let started = message.withUnsafeMutableBufferPointer { buffer in
            rp_server_start(
                host, UInt16(port), UInt32(max(2, threads)), &raw, SecurityHeaders.lines, gateCallback, callback,
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

    /// Stops accepting connections; requests in flight continue.
    public func quiesce() {
        stopped.withLock { if !$0 { rp_server_quiesce(server) } }
    }

    /// Requests begun and not yet completed.
    public var inFlight: Int { Int(rp_server_in_flight(server)) }

    /// Connections open right now.
    public var openConnections: Int { Int(rp_server_open_connections(server)) }

    /// Connections closed since start because their headers missed the deadline, and because
    /// their body fell behind the minimum rate.
    public var closedSlowClients: (headers: Int, bodies: Int) {
        (Int(rp_server_closed_slow_headers(server)), Int(rp_server_closed_slow_bodies(server)))
    }

    /// Stops the server (closes every connection). Answer every dispatched request first.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        // Outside the lock: stopping joins the server threads, which may be reading counters.
        if first { rp_server_stop(server) }
    }

    deinit {
        stop()
        rp_server_free(server)
    }
}
