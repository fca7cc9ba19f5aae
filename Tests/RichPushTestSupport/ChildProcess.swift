import Foundation

/// A child process for tests: a local server (Python, the built binary) or a one-shot command.
///
/// Servers print `PORT <n>` on their first stdout line once they listen; `start(waitingForPort:)`
/// reads it, so tests bind port 0 and never race for a fixed port.
///
/// Nothing here blocks a thread: waits are `Task.sleep` polls or a continuation resumed by the
/// process's termination handler, so test plumbing never holds the cooperative pool (2 threads on
/// a 2-core machine) that the pipeline's own deadline timers need. Output goes to temporary files,
/// not pipes: no readability handler (a dispatch source) can outlive the process and fire on a
/// released object.
public final class ChildProcess: @unchecked Sendable {
    /// What a finished process printed.
    public typealias Finished = (status: Int32, stdout: String, stderr: String)

    public let process = Process()
    private let outputFile: URL
    private let errorFile: URL
    private let exit = ExitLatch()
    private let lock = NSLock()
    private var launched = false
    /// Held around every spawn of the test process (see `launch()`, `DaemonSpawn`).
    static let spawnLock = NSLock()

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
        if !environment.isEmpty {
            var env = ProcessInfo.processInfo.environment
            for (k, v) in environment { env[k] = v }
            process.environment = env
        }
        let temp = FileManager.default.temporaryDirectory
        let id = UUID().uuidString
        outputFile = temp.appendingPathComponent("richpush-child-\(id).out")
        errorFile = temp.appendingPathComponent("richpush-child-\(id).err")
        process.standardInput = FileHandle.nullDevice
        let latch = exit
        process.terminationHandler = { _ in latch.open() }
    }

    /// Everything the process printed on stdout so far.
    public var standardOutput: String { Self.read(outputFile) }

    /// Everything the process printed on stderr so far.
    public var standardError: String { Self.read(errorFile) }

    /// Whether the process has started and not yet exited.
    public var isRunning: Bool { process.isRunning && !exit.isOpen }

    /// Starts the process (output to its files) without waiting for anything.
    /// - Throws: when the output files cannot be made or the program cannot start.
    public func launch() throws {
        lock.lock()
        defer { lock.unlock() }
        guard !launched else { return }
        guard FileManager.default.createFile(atPath: outputFile.path, contents: nil),
            FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        else { throw TestSupportError("cannot create output files in \(FileManager.default.temporaryDirectory.path)") }
        let out = try FileHandle(forWritingTo: outputFile)
        let err = try FileHandle(forWritingTo: errorFile)
        // The child holds its own descriptors after the spawn; ours are closed at once.
        defer {
            try? out.close()
            try? err.close()
        }
        process.standardOutput = out
        process.standardError = err
        // One spawn at a time: Foundation's `Process.run()` opens a socket pair (without
        // close-on-exec) whose EOF is how it learns that the child exited, and closes every other
        // descriptor in the child by the list it took just before spawning. Two concurrent
        // `run()`s can race so that one child (say a server living for the whole run) inherits
        // the other's socket end, and that other's exit is then never seen.
        try Self.spawnLock.withLock { try process.run() }
        launched = true
    }

    /// Starts the process and waits (without blocking a thread) for its `PORT <n>` line.
    ///
    /// - Parameter timeout: seconds to wait for the line.
    /// - Returns: the port.
    /// - Throws: when the process cannot start, exits, or prints no port in time (it is killed).
    @discardableResult
    public func start(waitingForPort timeout: Double = 60) async throws -> Int {
        try launch()
        let clock = ContinuousClock()
        let end = clock.now + .milliseconds(Int(timeout * 1000))
        // Checked once more after the deadline: on a loaded machine the sleep below can outlast
        // it while the line is already there.
        var lastLook = false
        while !lastLook {
            lastLook = clock.now >= end
            if let line = standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }),
                let port = Int(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
            {
                return port
            }
            if exit.isOpen || lastLook { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        kill()
        throw TestSupportError("no 'PORT n' line from \(process.arguments ?? []): stdout=\(standardOutput) stderr=\(standardError)")
    }

    /// Runs the process to completion without blocking a thread.
    ///
    /// - Parameter timeout: seconds before it is killed.
    /// - Returns: exit status (or the signal that ended it), stdout and stderr.
    /// - Throws: when the program cannot start.
    public func run(timeout: Double = 120) async throws -> Finished {
        try launch()
        await waitForExit(killingAfter: timeout)
        return (process.terminationStatus, standardOutput, standardError)
    }

    /// Sends SIGTERM, then SIGKILL after a grace period, and waits for the exit (without blocking
    /// a thread).
    /// - Parameter grace: seconds between SIGTERM and SIGKILL.
    public func terminate(grace: Double = 3) async {
        guard launched, !exit.isOpen else { return }
        Foundation.kill(process.processIdentifier, SIGTERM)
        await waitForExit(killingAfter: grace)
    }

    /// Sends SIGKILL and returns at once (safe in `defer` and `deinit`; the exit is reaped by
    /// Foundation's child watcher).
    public func kill() {
        guard launched, !exit.isOpen, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the exit; after `seconds`, sends SIGKILL and keeps waiting for the exit.
    private func waitForExit(killingAfter seconds: Double) async {
        let watchdog = Task { [self] in
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            kill()
        }
        await exit.wait()
        watchdog.cancel()
    }

    private static func read(_ url: URL) -> String {
        String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self)
    }

    deinit {
        if launched, !exit.isOpen, process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
        }
        try? FileManager.default.removeItem(at: outputFile)
        try? FileManager.default.removeItem(at: errorFile)
    }

    /// Runs several commands at once and waits for all of them (each killed at `timeout`).
    /// - Parameters:
    ///   - commands: executable and arguments of each.
    ///   - timeout: seconds before a process is killed.
    /// - Returns: their results, in order.
    /// - Throws: when a program cannot start.
    public static func runAll(_ commands: [(String, [String])], timeout: Double = 90) async throws -> [Finished] {
        let children = commands.map { ChildProcess($0.0, $0.1) }
        for child in children { try child.launch() }
        let watchdogs = children.map { child in
            Task {
                try await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
                child.kill()
            }
        }
        defer { for watchdog in watchdogs { watchdog.cancel() } }
        var results: [Finished] = []
        for child in children {
            await child.exit.wait()
            results.append((child.process.terminationStatus, child.standardOutput, child.standardError))
        }
        return results
    }
}

/// Opens once, when the process exits; any number of tasks await it without holding a thread.
private final class ExitLatch: @unchecked Sendable {
    private let lock = NSLock()
    private var opened = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    var isOpen: Bool { lock.withLock { opened } }

    func open() {
        let resumed: [CheckedContinuation<Void, Never>] = lock.withLock {
            opened = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in resumed { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                if opened { return true }
                waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// A failure in test plumbing (not in the code under test).
public struct TestSupportError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
