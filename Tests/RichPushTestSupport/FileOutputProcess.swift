import Foundation

/// Child processes whose output goes to temporary files instead of pipes: no readability
/// handlers (dispatch sources) outlive the process, so many short-lived children can be started
/// and released from concurrent tests safely. Blocking: call it through `offPool`.
public enum FileOutputProcess {
    /// What a finished process printed.
    public struct Finished: Sendable {
        /// The exit status (or the signal, for a killed process).
        public let status: Int32
        /// Everything printed on standard output.
        public let stdout: String
        /// Everything printed on standard error.
        public let stderr: String
    }

    /// Starts `executable` with its output in two temporary files.
    /// - Parameters:
    ///   - executable: an absolute path, or a name looked up with `/usr/bin/env`.
    ///   - arguments: the arguments.
    /// - Returns: the running process and its output files.
    public static func launch(_ executable: String, _ arguments: [String]) throws -> (Process, URL, URL) {
        let process = Process()
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-out-\(UUID().uuidString)")
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("richpush-err-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: out.path, contents: nil),
            FileManager.default.createFile(atPath: err.path, contents: nil)
        else { throw TestSupportError("cannot create output files in \(FileManager.default.temporaryDirectory.path)") }
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }

    /// Runs several processes at once and waits for all of them (each killed at `timeout`).
    /// - Parameters:
    ///   - commands: executable and arguments of each.
    ///   - timeout: seconds before a process is killed.
    /// - Returns: their results, in order.
    public static func runAll(_ commands: [(String, [String])], timeout: Double = 90) throws -> [Finished] {
        let started = try commands.map { try launch($0.0, $0.1) }
        let end = Date().addingTimeInterval(timeout)
        var results: [Finished] = []
        for (process, out, err) in started {
            while process.isRunning && Date() < end { Thread.sleep(forTimeInterval: 0.005) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let stdout = String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self)
            let stderr = String(decoding: (try? Data(contentsOf: err)) ?? Data(), as: UTF8.self)
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
            results.append(Finished(status: process.terminationStatus, stdout: stdout, stderr: stderr))
        }
        return results
    }

    /// Runs one process to completion.
    /// - Parameters:
    ///   - executable: the program.
    ///   - arguments: its arguments.
    ///   - timeout: seconds before it is killed.
    /// - Returns: its result.
    public static func run(_ executable: String, _ arguments: [String], timeout: Double = 90) throws -> Finished {
        guard let result = try runAll([(executable, arguments)], timeout: timeout).first else {
            throw TestSupportError("no result")
        }
        return result
    }
}
