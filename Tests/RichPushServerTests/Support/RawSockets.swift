import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Many plain TCP sockets to a local server, for playing slow or many clients: each connects from
/// a chosen loopback source address (the whole 127.0.0.0/8 is local on Linux, so one test can be
/// many client addresses), sends what it is told, and reports whether the server closed it.
///
/// Blocking calls: use it on a `DedicatedThread`, never on the cooperative pool.
final class RawSockets: @unchecked Sendable {
    private(set) var descriptors: [Int32] = []

    deinit { closeAll() }

    /// Connects `count` sockets to 127.0.0.1:`port`, spread round-robin over `sources` (e.g.
    /// `127.0.1.1`, `127.0.1.2`…).
    ///
    /// - Returns: how many connected.
    @discardableResult
    func open(_ count: Int, port: Int, sources: [String]) -> Int {
        var connected = 0
        for i in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { continue }
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(sources[i % sources.count])
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            var remote = sockaddr_in()
            remote.sin_family = sa_family_t(AF_INET)
            remote.sin_port = in_port_t(UInt16(port).bigEndian)
            remote.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, rc == 0 else {
                _ = Glibc.close(fd)
                continue
            }
            descriptors.append(fd)
            connected += 1
        }
        return connected
    }

    /// Sends `bytes` on every socket still open (errors ignored: the server may have closed it).
    func sendAll(_ bytes: String) {
        let data = Array(bytes.utf8)
        for fd in descriptors { _ = send(fd, data, data.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    /// Sockets the server has closed (a reset, or end of stream after whatever it sent), without waiting.
    func closedCount() -> Int {
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        _ = poll(&fds, nfds_t(fds.count), 0)
        var closed = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        for entry in fds where entry.revents != 0 {
            if entry.revents & Int16(POLLERR | POLLHUP) != 0 {
                closed += 1
                continue
            }
            // Readable: an answer, then maybe the end of the stream.
            var sawEnd = false
            while true {
                let n = recv(entry.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n > 0 { continue }
                if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { sawEnd = true }
                break
            }
            if sawEnd { closed += 1 }
        }
        return closed
    }

    /// Everything the server sent on the socket at `index` so far (non-blocking).
    func received(at index: Int) -> String {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(descriptors[index], &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { break }
            out += buffer[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Closes every socket.
    func closeAll() {
        for fd in descriptors { _ = Glibc.close(fd) }
        descriptors.removeAll()
    }

    /// `127.0.<third>.1` … `127.0.<third>.<count>`.
    static func loopbackSources(_ count: Int, third: Int) -> [String] {
        (1...count).map { "127.0.\(third).\($0)" }
    }
}

/// The resident memory of a process (`VmRSS` in /proc), in bytes.
enum ProcessMemory {
    static func residentBytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            return digits.map { $0 * 1024 }
        }
        return nil
    }
}
