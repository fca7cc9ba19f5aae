import Foundation
import RichPushTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Many plain TCP sockets to a local server, for playing slow or many clients: each connects from
/// a chosen loopback source address (the whole 127.0.0.0/8 is local on Linux, so one test can be
/// many client addresses), sends what it is told, and reports whether the server closed it.
///
/// The sockets live in a helper process (`Tests/Support/raw_sockets.py`), not in the test
/// process: every child the test process spawns meanwhile (Foundation's `Process`) walks and
/// closes each open descriptor, and with thousands of sockets open here a concurrent spawn was
/// seen to crash the test run.
///
/// Blocking calls: use it on a `DedicatedThread`, never on the cooperative pool.
final class RawSockets: @unchecked Sendable {
    private let helper: LineChild?

    init() {
        helper = try? LineChild("python3", [Fixtures.supportDirectory.appendingPathComponent("raw_sockets.py").path])
    }

    deinit { helper?.close() }

    private func ask(_ line: String) -> String {
        (try? helper?.request(line)) ?? ""
    }

    /// Connects `count` sockets to 127.0.0.1:`port`, spread round-robin over `sources` (e.g.
    /// `127.0.1.1`, `127.0.1.2`…).
    ///
    /// - Returns: how many connected.
    @discardableResult
    func open(_ count: Int, port: Int, sources: [String]) -> Int {
        Int(ask("open \(count) \(port) \(sources.joined(separator: ","))")) ?? 0
    }

    /// Sends `bytes` on every socket still open (errors ignored: the server may have closed it).
    func sendAll(_ bytes: String) {
        _ = ask("send \(Data(bytes.utf8).base64EncodedString())")
    }

    /// Sends `bytes` on the socket at `index`.
    func send(_ bytes: String, at index: Int) {
        _ = ask("sendone \(index) \(Data(bytes.utf8).base64EncodedString())")
    }

    /// Sockets the server has closed (a reset, or end of stream after whatever it sent), without waiting.
    func closedCount() -> Int {
        Int(ask("closed")) ?? 0
    }

    /// Everything the server sent on the socket at `index` so far (non-blocking).
    func received(at index: Int) -> String {
        let answer = ask("received \(index)")
        return String(decoding: Data(base64Encoded: answer == "-" ? "" : answer) ?? Data(), as: UTF8.self)
    }

    /// Polls (every 20 ms) until the server has closed at least `count` sockets or `seconds`
    /// have passed: how long the server takes depends on the machine's load, never assume it.
    ///
    /// - Returns: the sockets closed at the end (compare it with what the test expects).
    func waitUntilClosed(atLeast count: Int, seconds: Double = 30) -> Int {
        let end = Date().addingTimeInterval(seconds)
        var closed = closedCount()
        while closed < count, Date() < end {
            usleep(20_000)
            closed = closedCount()
        }
        return closed
    }

    /// Polls (every 20 ms) until what the socket at `index` received satisfies `done` or
    /// `seconds` have passed.
    ///
    /// - Returns: what it received at the end.
    func waitUntilReceived(at index: Int, seconds: Double = 30, _ done: (String) -> Bool) -> String {
        let end = Date().addingTimeInterval(seconds)
        var text = received(at: index)
        while !done(text), Date() < end {
            usleep(20_000)
            text = received(at: index)
        }
        return text
    }

    /// Closes every socket.
    func closeAll() {
        _ = ask("closeall")
    }

    /// `127.0.<third>.1` … `127.0.<third>.<count>`.
    static func loopbackSources(_ count: Int, third: Int) -> [String] {
        (1...count).map { "127.0.\(third).\($0)" }
    }
}

/// The sockets a process holds open (its `/proc/<pid>/fd` entries that are sockets).
enum ProcessSockets {
    static func count(of pid: Int32) -> Int {
        let directory = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)"))?.hasPrefix("socket:") == true }.count
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
