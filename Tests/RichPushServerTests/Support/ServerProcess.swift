import Foundation
import RichPushTestSupport

/// A `richpush serve` child process on an ephemeral port with a fresh database, for tests.
///
/// Every wait (for the port, for the exit) is awaited: nothing here holds a pool thread.
/// Unchecked: `restart()` replaces `child` and `port`; a test uses one instance from one task at a time.
final class ServerProcess: @unchecked Sendable {
    static let token = "test-admin-token-0123456789"
    let directory: URL
    /// The SQLite file (unused when `dbArgument` is a PostgreSQL URL).
    let database: URL
    /// What `--db` was given: the SQLite file's path or a `postgres://` URL.
    let dbArgument: String
    private(set) var child: ChildProcess
    private(set) var port: Int

    /// Starts a server on a new SQLite file (or on `database` when given).
    init(database: URL? = nil, extraArguments: [String] = []) async throws {
        directory = try Fixtures.temporaryDirectory("richpush-serve")
        self.database = database ?? directory.appendingPathComponent("receipts.sqlite")
        dbArgument = self.database.path
        (child, port) = try await Self.launch(dbArgument: dbArgument, extraArguments: extraArguments)
    }

    /// Starts a server on `--db dbArgument` (e.g. a PostgreSQL URL shared with other instances).
    init(dbArgument: String, extraArguments: [String] = []) async throws {
        directory = try Fixtures.temporaryDirectory("richpush-serve")
        database = directory.appendingPathComponent("unused.sqlite")
        self.dbArgument = dbArgument
        (child, port) = try await Self.launch(dbArgument: dbArgument, extraArguments: extraArguments)
    }

    private static func launch(dbArgument: String, extraArguments: [String]) async throws -> (ChildProcess, Int) {
        let child = ChildProcess(
            Fixtures.richpushBinary.path,
            ["serve"] + (extraArguments.contains("--port") ? [] : ["--port", "0"]) + ["--db", dbArgument, "--admin-token", token] + extraArguments
        )
        let port = try await child.start(waitingForPort: 60)
        return (child, port)
    }

    /// Starts the server again on the same database (after a kill), with `extraArguments`.
    func restart(extraArguments: [String] = []) async throws {
        (child, port) = try await Self.launch(dbArgument: dbArgument, extraArguments: extraArguments)
    }

    func client(from source: String? = nil) -> HTTPTestClient { HTTPTestClient(port: port, source: source) }

    /// The dashboard's own origin, as a browser on it sends in `Origin`.
    var origin: String { "http://127.0.0.1:\(port)" }

    /// The server's process id.
    var pid: Int32 { child.process.processIdentifier }

    /// The server's media worker processes alive now (its children started as `richpush __media-worker`).
    var mediaWorkers: [Int32] {
        ProcessTable.children(of: pid).filter { $0.arguments.contains("__media-worker") }.map(\.pid)
    }

    /// The server process's resident memory, in bytes.
    var residentBytes: Int? { ProcessMemory.residentBytes(of: child.process.processIdentifier) }

    var admin: [String: String] { ["Authorization": "Bearer \(Self.token)"] }

    /// SIGKILL, no chance to clean up; returns once the process is gone (polled with
    /// `Task.sleep`, at most 30 s).
    /// - Throws: when the process is still there after 30 s.
    func kill9() async throws {
        child.kill()
        let clock = ContinuousClock()
        let end = clock.now + .seconds(30)
        while child.isRunning {
            guard clock.now < end else { throw TestSupportError("richpush serve still running 30 s after SIGKILL") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// SIGTERM, SIGKILL after `timeout` seconds, and await the exit; returns the exit status.
    func terminate(timeout: Double = 20) async -> Int32 {
        await child.terminate(grace: timeout)
        return child.process.terminationStatus
    }

    /// The figures for one push (admin API).
    func push(_ id: String) async throws -> [String: Any] {
        let c = client()
        let r = try await c.request("GET", "/v1/pushes/\(id)", headers: admin)
        guard r.status == 200 else { throw HTTPTestClient.HTTPTestError("GET push \(id): \(r.status) \(r.text)") }
        return try r.json()
    }

    deinit {
        child.kill()
        try? FileManager.default.removeItem(at: directory)
    }
}
