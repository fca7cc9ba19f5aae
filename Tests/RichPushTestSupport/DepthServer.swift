import Foundation

/// `Tests/Support/depth_server.py` for the extension-depth tests: media with a chosen
/// `Cache-Control`, a stalling route, a request counter, and a receipts listener whose answers
/// can be scripted (e.g. `503,200`).
public final class DepthServer: @unchecked Sendable {
    /// The server process.
    public let process: ChildProcess
    /// Its port on 127.0.0.1.
    public let port: Int

    /// Starts the server.
    /// - Parameters:
    ///   - port: the port to bind (0: a free one).
    ///   - statuses: the receipts answers, comma-separated; the last repeats.
    public init(port: Int = 0, statuses: String = "200") throws {
        process = ChildProcess(
            "python3",
            [Fixtures.supportDirectory.appendingPathComponent("depth_server.py").path, "--port", String(port), "--statuses", statuses]
        )
        self.port = try process.start()
    }

    /// Starts the server off the concurrency pool (see `offPool`).
    /// - Parameters:
    ///   - port: the port to bind (0: a free one).
    ///   - statuses: the receipts answers, comma-separated; the last repeats.
    /// - Returns: the running server.
    public static func start(port: Int = 0, statuses: String = "200") async throws -> DepthServer {
        try await offPool { try DepthServer(port: port, statuses: statuses) }
    }

    /// Stops the server off the concurrency pool.
    public func stopped() async {
        _ = try? await offPool { [self] in stop() }
    }

    /// `http://127.0.0.1:PORT`.
    public var base: String { "http://127.0.0.1:\(port)" }

    /// Stops the server.
    public func stop() { process.terminate() }

    /// The receipts accepted so far, as form fields.
    public func received() throws -> [[String: String]] {
        let data = try Self.get("\(base)/received")
        guard let list = try JSONSerialization.jsonObject(with: data) as? [[String: String]] else {
            throw TestSupportError("unexpected /received body")
        }
        return list
    }

    /// How many `/media/…` requests the server has answered.
    public func mediaRequests() throws -> Int {
        let data = try Self.get("\(base)/requests")
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Int], let n = object["media"] else {
            throw TestSupportError("unexpected /requests body")
        }
        return n
    }

    /// GETs a URL with Python's urllib (keeps test plumbing out of the code under test).
    public static func get(_ url: String) throws -> Data {
        let result = try ChildProcess(
            "python3", ["-c", "import sys,urllib.request;sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=10).read())", url]
        ).runToCompletion(timeout: 30)
        guard result.status == 0 else { throw TestSupportError("GET \(url) failed: \(result.stderr)") }
        return Data(result.stdout.utf8)
    }
}
