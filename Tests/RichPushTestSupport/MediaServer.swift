import Foundation

/// The bundled media server (`Tests/Support/media_server.py`) on 127.0.0.1 and an ephemeral port.
///
/// One instance is shared by the tests of a process (`MediaServer.shared`); the script exits when
/// its parent does, so nothing outlives the test run.
public final class MediaServer: Sendable {
    /// The server's port.
    public let port: Int
    private let child: ChildProcess

    /// Starts a server and waits for its `PORT n` line.
    /// - Throws: when python3 or the script cannot start.
    public init() throws {
        child = ChildProcess("python3", [Fixtures.supportDirectory.appendingPathComponent("media_server.py").path])
        port = try child.start(waitingForPort: 20)
    }

    /// The server shared by every test in this process.
    public static let shared: Result<MediaServer, TestSupportError> = {
        do { return .success(try MediaServer()) } catch {
            return .failure(TestSupportError("media server did not start: \(error)"))
        }
    }()

    /// The shared server, or a thrown error naming why it did not start.
    public static func get() throws -> MediaServer {
        try shared.get()
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

    /// Every receipt body the server has recorded so far.
    public func receipts() throws -> [String] {
        let run = try ChildProcess("curl", ["-s", "--max-time", "5", url("/receipts/log")]).runToCompletion(timeout: 10)
        guard run.status == 0 else { throw TestSupportError("curl failed: \(run.stderr)") }
        let data = Data(run.stdout.utf8)
        guard let bodies = try JSONSerialization.jsonObject(with: data) as? [String] else {
            throw TestSupportError("receipts log is not a JSON array of strings")
        }
        return bodies
    }

    /// Stops the server.
    public func stop() {
        child.terminate()
    }
}

