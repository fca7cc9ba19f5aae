import Foundation

/// `Tests/Support/depth_server.py` for the extension-depth tests: media with a chosen
/// `Cache-Control` (and a slow-link `rate`), a stalling route, a request counter, and a receipts
/// listener whose answers can be scripted (e.g. `503,200`).
///
/// Its output goes to a file (no pipe handlers); it is killed when released, so a test never
/// blocks the concurrency pool to stop it.
public final class DepthServer: @unchecked Sendable {
    private let process: Process
    private let output: URL
    /// Its port on 127.0.0.1.
    public let port: Int

    /// Starts the server and waits for its `PORT n` line (blocking: use `start`).
    /// - Parameters:
    ///   - port: the port to bind (0: a free one).
    ///   - statuses: the receipts answers, comma-separated; the last repeats.
    public init(port: Int = 0, statuses: String = "200") throws {
        let script = Fixtures.supportDirectory.appendingPathComponent("depth_server.py").path
        let (process, out, err) = try FileOutputProcess.launch("python3", [script, "--port", String(port), "--statuses", statuses])
        try? FileManager.default.removeItem(at: err)
        self.process = process
        self.output = out
        let end = Date().addingTimeInterval(20)
        var found: Int?
        while found == nil && Date() < end && process.isRunning {
            let text = String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }) {
                found = Int(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
            } else {
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        guard let found else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw TestSupportError("depth_server.py printed no PORT line")
        }
        self.port = found
    }

    /// Starts the server off the concurrency pool (see `offPool`).
    /// - Parameters:
    ///   - port: the port to bind (0: a free one).
    ///   - statuses: the receipts answers, comma-separated; the last repeats.
    /// - Returns: the running server.
    public static func start(port: Int = 0, statuses: String = "200") async throws -> DepthServer {
        try await offPool { try DepthServer(port: port, statuses: statuses) }
    }

    /// Stops the server and waits until its port is free (blocking: use `stopped`).
    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Stops the server off the concurrency pool.
    public func stopped() async {
        _ = try? await offPool { [self] in stop() }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: output)
    }

    /// `http://127.0.0.1:PORT`.
    public var base: String { "http://127.0.0.1:\(port)" }

    /// The receipts accepted so far, as form fields (blocking).
    public func received() throws -> [[String: String]] {
        let data = try Self.get("\(base)/received")
        guard let list = try JSONSerialization.jsonObject(with: data) as? [[String: String]] else {
            throw TestSupportError("unexpected /received body")
        }
        return list
    }

    /// How many `/media/…` requests the server has answered (blocking).
    public func mediaRequests() throws -> Int {
        let data = try Self.get("\(base)/requests")
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Int], let n = object["media"] else {
            throw TestSupportError("unexpected /requests body")
        }
        return n
    }

    /// GETs a URL with Python's urllib (blocking; keeps test plumbing out of the code under test).
    public static func get(_ url: String) throws -> Data {
        let result = try FileOutputProcess.run(
            "python3", ["-c", "import sys,urllib.request;sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=10).read())", url],
            timeout: 30)
        guard result.status == 0 else { throw TestSupportError("GET \(url) failed: \(result.stderr)") }
        return Data(result.stdout.utf8)
    }
}
