import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on 127.0.0.1 held for a test: a socket bound to it with `SO_REUSEADDR` that never
/// listens, kept open until the reservation is released.
///
/// A port learnt from a released socket ("free a moment ago") can be taken by any other process
/// before the server meant for it binds, or while that server is stopped between a test's stop
/// and restart: a parallel test's server then answers in its place, or the restart fails. While
/// this socket holds the port, Linux gives it to no `bind` to port 0 and to no `bind` without
/// `SO_REUSEADDR`; a server that sets `SO_REUSEADDR` (PostgreSQL, nginx, HAProxy, libmicrohttpd,
/// Python's `http.server` and asyncio all do) binds and listens on it as usual. Connections to
/// it are refused while no server listens, exactly as on a free port.
public final class PortReservation: @unchecked Sendable {
    /// The reserved port.
    public let port: Int
    private let fd: Int32

    /// Reserves a port the kernel picks.
    ///
    /// - Throws: `TestSupportError` when no socket can be bound.
    public init() throws {
        // Close-on-exec: a child spawned meanwhile must not keep the port after the release.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket() failed (errno \(errno))") }
        var one: Int32 = 1
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0
                    && bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw TestSupportError("cannot reserve a port on 127.0.0.1 (errno \(code))")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
    }

    deinit { close(fd) }
}
