import Foundation
import RichPushTestSupport

/// A `richpush serve` child process on an ephemeral port with a fresh database, for tests.
final class ServerProcess {
    static let token = "test-admin-token-0123456789"
    let directory: URL
    let database: URL
    private(set) var child: ChildProcess
    private(set) var port: Int

    /// Starts a server on a new database (or on `database` when given).
    init(database: URL? = nil, extraArguments: [String] = []) throws {
        directory = try Fixtures.temporaryDirectory("richpush-serve")
        self.database = database ?? directory.appendingPathComponent("receipts.sqlite")
        (child, port) = try Self.launch(database: self.database, extraArguments: extraArguments)
    }

    private static func launch(database: URL, extraArguments: [String]) throws -> (ChildProcess, Int) {
        let child = ChildProcess(
            Fixtures.richpushBinary.path,
            ["serve", "--port", "0", "--db", database.path, "--admin-token", token] + extraArguments
        )
        let port = try child.start(waitingForPort: 30)
        return (child, port)
    }

    /// Starts the server again on the same database (after a kill).
    func restart() throws {
        (child, port) = try Self.launch(database: database, extraArguments: [])
    }

    func client() -> HTTPTestClient { HTTPTestClient(port: port) }

    var admin: [String: String] { ["Authorization": "Bearer \(Self.token)"] }

    /// SIGKILL, no chance to clean up.
    func kill9() {
        kill(child.process.processIdentifier, SIGKILL)
        child.process.waitUntilExit()
    }

    /// SIGTERM and wait; returns the exit status.
    func terminate(timeout: Double = 20) -> Int32 {
        child.process.terminate()
        let end = Date().addingTimeInterval(timeout)
        while child.process.isRunning && Date() < end { Thread.sleep(forTimeInterval: 0.01) }
        if child.process.isRunning { kill(child.process.processIdentifier, SIGKILL) }
        child.process.waitUntilExit()
        return child.process.terminationStatus
    }

    /// The figures for one push (admin API).
    func push(_ id: String) throws -> [String: Any] {
        let c = client()
        let r = try c.request("GET", "/v1/pushes/\(id)", headers: admin)
        guard r.status == 200 else { throw HTTPTestClient.HTTPTestError("GET push \(id): \(r.status) \(r.text)") }
        return try r.json()
    }

    deinit {
        if child.process.isRunning { kill9() }
        try? FileManager.default.removeItem(at: directory)
    }
}
