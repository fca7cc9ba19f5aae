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

    /// The server shared by every test in this process, started by the first caller. A `Task`, not
    /// a lazily initialised value: the callers that arrive while it starts await it instead of
    /// blocking their threads in `swift_once`.
    private static let shared = Task { () -> Result<MediaServer, TestSupportError> in
        do { return .success(try await MediaServer.start()) } catch {
            return .failure(TestSupportError("media server did not start: \(error)"))
        }
    }

    /// The shared server, or a thrown error naming why it did not start.
    public static func get() async throws -> MediaServer {
        try await shared.value.get()
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
