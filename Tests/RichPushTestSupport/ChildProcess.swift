import Foundation

/// A child process for tests: a local server (Python, the built binary) or a one-shot command.
///
/// Servers print `PORT <n>` on their first stdout line once they listen; `start(waitingForPort:)`
/// reads it, so tests bind port 0 and never race for a fixed port.
public final class ChildProcess: @unchecked Sendable {
    public let process = Process()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let lock = NSLock()
    private var stdoutBuffer = Data()
    private var stderrBuffer = Data()

    /// Prepares a process.
    /// - Parameters:
    ///   - executable: the program (absolute path, or a name looked up with `/usr/bin/env`).
    ///   - arguments: its arguments.
    ///   - environment: extra environment variables.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) {
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = FileHandle.nullDevice
        stdoutPipe.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self else { return }
            self.lock.lock(); self.stdoutBuffer.append(d); self.lock.unlock()
        }
        stderrPipe.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self else { return }
            self.lock.lock(); self.stderrBuffer.append(d); self.lock.unlock()
        }
    }

    /// Everything the process printed on stdout so far.
    public var standardOutput: String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: stdoutBuffer, as: UTF8.self)
    }

    /// Everything the process printed on stderr so far.
    public var standardError: String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: stderrBuffer, as: UTF8.self)
    }

    /// Starts the process and waits for its `PORT <n>` line.
    ///
    /// - Parameter timeout: seconds to wait for the line.
    /// - Returns: the port.
    /// - Throws: when the process cannot start, exits, or prints no port in time.
    @discardableResult
    public func start(waitingForPort timeout: Double = 20) throws -> Int {
        try process.run()
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if let line = standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }),
                let port = Int(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
            {
                return port
            }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        terminate()
        throw TestSupportError("no 'PORT n' line from \(process.arguments ?? []): stdout=\(standardOutput) stderr=\(standardError)")
    }

    /// Runs the process to completion.
    ///
    /// - Parameter timeout: seconds before it is killed.
    /// - Returns: exit status, stdout and stderr.
    public func runToCompletion(timeout: Double = 120) throws -> (status: Int32, stdout: String, stderr: String) {
        try process.run()
        let end = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < end { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { terminate() }
        process.waitUntilExit()
        // Drain what is left in the pipes.
        let restOut = (try? stdoutPipe.fileHandleForReading.readToEnd()) ?? nil
        let restErr = (try? stderrPipe.fileHandleForReading.readToEnd()) ?? nil
        lock.lock()
        if let restOut { stdoutBuffer.append(restOut) }
        if let restErr { stderrBuffer.append(restErr) }
        lock.unlock()
        return (process.terminationStatus, standardOutput, standardError)
    }

    /// Sends SIGTERM, then SIGKILL after a grace period, and waits.
    public func terminate(grace: Double = 3) {
        guard process.isRunning else { return }
        process.terminate()
        let end = Date().addingTimeInterval(grace)
        while process.isRunning && Date() < end { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
    }
}

/// A failure in test plumbing (not in the code under test).
public struct TestSupportError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
