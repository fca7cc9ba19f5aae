import Foundation

/// `Tests/Support/depth_server.py` for the extension-depth tests: media with a chosen
/// `Cache-Control` (and a slow-link `rate`), a stalling route, a request counter, and a receipts
/// listener whose answers can be scripted (e.g. `503,200`).
///
/// Its output goes to a file (no pipe handlers); it is killed when released, and nothing here
/// blocks a thread of the concurrency pool.
public final class DepthServer: Sendable {
    private let child: ChildProcess
    /// Its port on 127.0.0.1.
    public let port: Int
    /// The port it chose, held while this lives: once stopped, the port refuses connections
    /// instead of being free for another test's server to answer on.
    private let reservation: PortReservation?

    private init(child: ChildProcess, port: Int, reservation: PortReservation?) {
        self.child = child
        self.port = port
        self.reservation = reservation
    }

    /// Starts the server and waits for its `PORT n` line.
    /// - Parameters:
    ///   - port: the port to bind (0: a free one, reserved while the server lives; another
    ///     port: the caller holds it, e.g. with a `PortReservation`).
    ///   - statuses: the receipts answers, comma-separated; the last repeats.
    /// - Returns: the running server.
    /// - Throws: when the script cannot start or prints no port.
    public static func start(port: Int = 0, statuses: String = "200") async throws -> DepthServer {
        let reservation = port == 0 ? try PortReservation() : nil
        let script = Fixtures.supportDirectory.appendingPathComponent("depth_server.py").path
        let child = ChildProcess("python3", [script, "--port", String(reservation?.port ?? port), "--statuses", statuses])
        let found = try await child.start(waitingForPort: 30)
        return DepthServer(child: child, port: found, reservation: reservation)
    }

    /// Stops the server and waits until it has exited (its port then refuses connections).
    public func stopped() async {
        child.kill()
        await child.terminate(grace: 0)
    }

    deinit { child.kill() }

    /// `http://127.0.0.1:PORT`.
    public var base: String { "http://127.0.0.1:\(port)" }

    /// The receipts accepted so far, as form fields.
    public func received() async throws -> [[String: String]] {
        let data = try await Self.get("\(base)/received")
        guard let list = try JSONSerialization.jsonObject(with: data) as? [[String: String]] else {
            throw TestSupportError("unexpected /received body")
        }
        return list
    }

    /// How many `/media/…` requests the server has answered.
    public func mediaRequests() async throws -> Int {
        let data = try await Self.get("\(base)/requests")
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Int], let n = object["media"] else {
            throw TestSupportError("unexpected /requests body")
        }
        return n
    }

    /// GETs a URL with Python's urllib (keeps test plumbing out of the code under test).
    public static func get(_ url: String) async throws -> Data {
        let result = try await ChildProcess(
            "python3", ["-c", "import sys,urllib.request;sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=10).read())", url]
        ).run(timeout: 30)
        guard result.status == 0 else { throw TestSupportError("GET \(url) failed: \(result.stderr)") }
        return Data(result.stdout.utf8)
    }
}
