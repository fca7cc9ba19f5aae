import Foundation

/// The bundled media server (`Tests/Support/media_server.py`) on 127.0.0.1 and an ephemeral port.
///
/// One instance is shared by the tests of a process (`MediaServer.get()`); the script exits when
/// its parent does, so nothing outlives the test run.
public final class MediaServer: Sendable {
    /// The server's port.
    public let port: Int
    private let child: ChildProcess

    private init(child: ChildProcess, port: Int) {
        self.child = child
        self.port = port
    }

    /// Starts a server and waits (without blocking a thread) for its `PORT n` line.
    /// - Returns: the running server.
    /// - Throws: when python3 or the script cannot start.
    public static func start() async throws -> MediaServer {
        let child = ChildProcess("python3", [Fixtures.supportDirectory.appendingPathComponent("media_server.py").path])
        let port = try await child.start(waitingForPort: 30)
        return MediaServer(child: child, port: port)
    }

    /// The shared servers by name, each started by its first caller. A `Task` per name, not a
    /// lazily initialised value: callers that arrive while it starts await it instead of blocking
    /// their threads in `swift_once`.
    private static let servers = SharedServers()

    /// A server shared by every test in this process that asks for the same `name`.
    ///
    /// The script is one Python process (one GIL): dozens of concurrent cases, some streaming
    /// 14 MB, make a single server the slowest part of a loaded machine. The heaviest suites ask
    /// for a server of their own name, so their requests never queue behind the others'.
    /// - Parameter name: which shared server (default: the common one).
    /// - Returns: the running server.
    /// - Throws: a `TestSupportError` naming why it did not start.
    public static func get(_ name: String = "shared") async throws -> MediaServer {
        try await servers.server(named: name).value.get()
    }

    /// `http://127.0.0.1:PORT` + `path` (the path as given: spaces or non-ASCII stay unencoded).
    public func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)" + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// `url(path)` as a `URL` (for ASCII paths).
    public func urlValue(_ path: String) -> URL {
        URL(string: url(path))!
    }

    /// The receipts URL (`POST /receipts` records bodies).
    public var receiptsURL: URL {
        URL(string: "http://127.0.0.1:\(port)/receipts")!
    }

    /// Every receipt body the server has recorded so far (fetched by a `curl` child process, so
    /// test plumbing stays out of the code under test).
    public func receipts() async throws -> [String] {
        let run = try await ChildProcess("curl", ["-s", "--max-time", "5", url("/receipts/log")]).run(timeout: 10)
        guard run.status == 0 else { throw TestSupportError("curl failed: \(run.stderr)") }
        let data = Data(run.stdout.utf8)
        guard let bodies = try JSONSerialization.jsonObject(with: data) as? [String] else {
            throw TestSupportError("receipts log is not a JSON array of strings")
        }
        return bodies
    }

    /// Stops the server and waits for its exit.
    public func stop() async {
        await child.terminate()
    }
}

/// The named shared servers: one start each, awaited by every caller.
private final class SharedServers: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [String: Task<Result<MediaServer, TestSupportError>, Never>] = [:]

    func server(named name: String) -> Task<Result<MediaServer, TestSupportError>, Never> {
        lock.withLock {
            if let task = tasks[name] { return task }
            let task = Task { () -> Result<MediaServer, TestSupportError> in
                do { return .success(try await MediaServer.start()) } catch {
                    return .failure(TestSupportError("media server '\(name)' did not start: \(error)"))
                }
            }
            tasks[name] = task
            return task
        }
    }
}
