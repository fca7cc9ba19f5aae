import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A helper process driven by lines: each request is one line on its stdin, each answer one line
/// on its stdout (e.g. `Tests/Support/raw_sockets.py`, which holds thousands of sockets so the
/// test process does not have to).
///
/// Blocking reads and writes on plain pipes: call it from a `DedicatedThread`, never from the
/// cooperative pool. The spawn takes `ChildProcess.spawnLock` like every other spawn of the
/// test process, and the pipe ends kept here are close-on-exec, so no other child inherits them.
public final class LineChild: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var input: Int32
    private var output: Int32
    private var buffer: [UInt8] = []

    /// Starts the program.
    ///
    /// - Parameters:
    ///   - executable: looked up with `/usr/bin/env` (e.g. `python3`).
    ///   - arguments: its arguments.
    /// - Throws: `TestSupportError` when the pipes or the process cannot be made.
    public init(_ executable: String, _ arguments: [String]) throws {
        // Made under the spawn lock (no other spawn runs between pipe() and FD_CLOEXEC).
        ChildProcess.spawnLock.lock()
        defer { ChildProcess.spawnLock.unlock() }
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0 else { throw TestSupportError("pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&fromChild) == 0 else {
            _ = Glibc.close(toChild[0])
            _ = Glibc.close(toChild[1])
            throw TestSupportError("pipe: \(String(cString: strerror(errno)))")
        }
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        input = toChild[1]
        output = fromChild[0]
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        process.standardInput = FileHandle(fileDescriptor: toChild[0], closeOnDealloc: false)
        process.standardOutput = FileHandle(fileDescriptor: fromChild[1], closeOnDealloc: false)
        process.standardError = FileHandle.standardError
        defer {
            _ = Glibc.close(toChild[0])
            _ = Glibc.close(fromChild[1])
        }
        do {
            try process.run()
        } catch {
            _ = Glibc.close(input)
            _ = Glibc.close(output)
            input = -1
            output = -1
            throw error
        }
    }

    /// Sends one line and returns the answer line (without its newline).
    ///
    /// - Parameter line: the request, without a newline.
    /// - Returns: the answer.
    /// - Throws: `TestSupportError` when the helper has gone.
    public func request(_ line: String) throws -> String {
        try lock.withLock {
            guard input >= 0 else { throw TestSupportError("the helper is closed") }
            let bytes = Array((line + "\n").utf8)
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw TestSupportError("writing to \(process.arguments ?? []): \(String(cString: strerror(errno)))") }
                sent += n
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                if let newline = buffer.firstIndex(of: 10) {
                    let answer = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    return answer
                }
                let n = read(output, &chunk, chunk.count)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw TestSupportError("\(process.arguments ?? []) ended without answering '\(line.prefix(40))'") }
                buffer += chunk[0..<n]
            }
        }
    }

    /// Closes its stdin (the helper ends at end of input) and the pipes.
    public func close() {
        lock.withLock {
            if input >= 0 { _ = Glibc.close(input) }
            if output >= 0 { _ = Glibc.close(output) }
            input = -1
            output = -1
        }
    }

    deinit {
        close()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
