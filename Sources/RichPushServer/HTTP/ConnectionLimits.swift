import Foundation

/// How `richpush serve` treats slow, many or large clients (the `serve` options in brackets).
///
/// libmicrohttpd enforces the connection caps, the idle timeout and the per-connection memory
/// (`MHD_OPTION_CONNECTION_LIMIT`, `MHD_OPTION_PER_IP_CONNECTION_LIMIT`,
/// `MHD_OPTION_CONNECTION_TIMEOUT`, `MHD_OPTION_CONNECTION_MEMORY_LIMIT`); the C shim adds the
/// header deadline and the minimum body rate, which libmicrohttpd does not have (a client sending
/// one header line every few seconds is never idle long enough for its idle timeout).
public struct ConnectionLimits: Sendable, Equatable {
    /// Most connections open at once (`--max-connections`, default 10,000). From 90 % of it on,
    /// requests are answered `503 server_busy` with `Retry-After` (see `busyThreshold`), so
    /// clients get a clear answer before new connections start being dropped at accept.
    public var maximumConnections: Int = 10_000
    /// Most connections from one client address (`--max-connections-per-ip`, default 64; 0 = no
    /// limit, for running behind a reverse proxy whose address every connection has).
    public var maximumConnectionsPerIP: Int = 64
    /// Seconds the request line and headers may take, from the connection's start or the end of
    /// its previous request when kept alive (`--header-timeout`, default 10 s; so an idle
    /// keep-alive connection is also closed after it).
    public var headerTimeoutSeconds: Double = 10
    /// The slowest body accepted, in bytes per second, after a grace of `headerTimeoutSeconds`
    /// from the end of the headers (`--min-body-rate`, default 1,024 B/s; 0 = none). As Apache's
    /// mod_reqtimeout `MinRate`: each `minimumBodyBytesPerSecond` bytes received buy one more second.
    public var minimumBodyBytesPerSecond: Int = 1_024
    /// Seconds without any byte in or out before a connection is closed (`--idle-timeout`,
    /// default 30 s; covers a client that stops reading its answer).
    public var idleTimeoutSeconds: Int = 30
    /// Memory per connection for the request line, headers and buffers, in bytes: 16 KB (heads
    /// larger than about 12 KB are refused by libmicrohttpd with 431). Not an option.
    public var connectionMemoryBytes: Int = 16_384

    /// Makes the defaults.
    public init() {}

    /// Open connections from which requests are answered `503 server_busy`: 90 % of
    /// `maximumConnections`.
    public var busyThreshold: Int { max(1, maximumConnections - maximumConnections / 10) }

    /// File descriptors the server needs beyond its connections (database, WAL, APNs, logs).
    public static let reservedDescriptors = 128
}
