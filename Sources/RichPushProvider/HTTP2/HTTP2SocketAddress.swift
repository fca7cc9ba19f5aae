#if canImport(CNGHTTP2) && os(Linux)
import CNGHTTP2
import Foundation

/// One address to connect to (IPv4 or IPv6, with its port).
struct HTTP2SocketAddress: Sendable {
    private var storage = sockaddr_storage()
    private var length: socklen_t = 0

    /// Calls `body` with the address as a `sockaddr` and its length.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// Whether `host` is an IPv4 or IPv6 literal (no name lookup, no SNI).
    static func isIPLiteral(_ host: String) -> Bool { literal(host, port: 0) != nil }

    /// The address of an IP literal, or `nil` for a name.
    static func literal(_ host: String, port: Int) -> HTTP2SocketAddress? {
        var address = HTTP2SocketAddress()
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &address.storage) { raw in
                withUnsafeBytes(of: v4) { raw.copyMemory(from: $0) }
            }
            address.length = socklen_t(MemoryLayout<sockaddr_in>.size)
            return address
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &address.storage) { raw in
                withUnsafeBytes(of: v6) { raw.copyMemory(from: $0) }
            }
            address.length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            return address
        }
        return nil
    }

    /// Looks a name up (getaddrinfo, which blocks) on another thread and calls `done` there with
    /// its TCP addresses in the resolver's order, or why there are none.
    static func resolve(host: String, port: Int, done: @escaping @Sendable (Result<[HTTP2SocketAddress], ResolveFailure>) -> Void) {
        let thread = Thread {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            hints.ai_family = AF_UNSPEC
            var list: UnsafeMutablePointer<addrinfo>?
            let code = getaddrinfo(host, String(port), &hints, &list)
            guard code == 0, let first = list else {
                done(.failure(ResolveFailure(message: String(cString: gai_strerror(code)))))
                return
            }
            defer { freeaddrinfo(first) }
            var found: [HTTP2SocketAddress] = []
            var next: UnsafeMutablePointer<addrinfo>? = first
            while let entry = next {
                if let address = entry.pointee.ai_addr, Int(entry.pointee.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size {
                    var item = HTTP2SocketAddress()
                    withUnsafeMutableBytes(of: &item.storage) { raw in
                        raw.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen)))
                    }
                    item.length = entry.pointee.ai_addrlen
                    found.append(item)
                }
                next = entry.pointee.ai_next
            }
            done(found.isEmpty ? .failure(ResolveFailure(message: "no address")) : .success(found))
        }
        thread.name = "richpush-resolve"
        thread.start()
    }

    /// Why a name has no address.
    struct ResolveFailure: Error, Sendable {
        var message: String
    }
}
#endif
