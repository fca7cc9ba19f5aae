import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Linux's process table (`/proc`), for tests that check what a child process holds: its
/// command line, resource limits, environment and open descriptors.
public enum ProcessTable {
    /// One process.
    public struct Entry: Sendable, Equatable {
        /// The process id.
        public let pid: Int32
        /// Its arguments (`/proc/PID/cmdline`).
        public let arguments: [String]
    }

    /// The live children of `parent`.
    ///
    /// - Parameter parent: the parent's pid (default: this process).
    /// - Returns: each child with its arguments.
    public static func children(of parent: Int32 = getpid()) -> [Entry] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return names.compactMap { name -> Entry? in
            guard let pid = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // pid (comm) state ppid …: the comm may hold spaces and parentheses, so after the last ')'.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", Int32(fields[1]) == parent else { return nil }
            let cmdline = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return Entry(pid: pid, arguments: arguments)
        }
    }

    /// A limit of `pid` as `/proc/PID/limits` shows it, e.g. `"Max address space"` → `(soft, hard)`
    /// (`"unlimited"` or a number as text).
    public static func limit(_ name: String, of pid: Int32) -> (soft: String, hard: String)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let fields = line.dropFirst(name.count).split(separator: " ")
            guard fields.count >= 2 else { return nil }
            return (String(fields[0]), String(fields[1]))
        }
        return nil
    }

    /// The environment of `pid` (`NAME=value` each), or `nil` when it cannot be read.
    public static func environment(of pid: Int32) -> [String]? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ")) else { return nil }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// CPU time `pid` has used (user + system), in clock ticks (`/proc/PID/stat`); 0 when gone.
    public static func cpuTicks(_ pid: Int32) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13 else { return 0 }
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    /// The first of `candidates()` seen using CPU (more than 5 ticks between two looks 200 ms
    /// apart), waiting up to `timeout`.
    ///
    /// - Parameters:
    ///   - timeout: how long to look.
    ///   - candidates: the pids to watch, asked again at each look.
    /// - Returns: the busy process's pid.
    /// - Throws: `TestSupportError` when none was busy in time.
    public static func firstBusy(timeout: Duration = .seconds(60), among candidates: () -> [Int32]) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        var last: [Int32: Int] = [:]
        while ContinuousClock.now < deadline {
            for pid in candidates() {
                let ticks = cpuTicks(pid)
                if let before = last[pid], ticks > before + 5 { return pid }
                last[pid] = ticks
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw TestSupportError("no process became busy within \(timeout)")
    }

    /// The open descriptors of `pid`, or `nil` when they cannot be read.
    public static func descriptors(of pid: Int32) -> [Int]? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.compactMap { Int($0) }.sorted()
    }
}
