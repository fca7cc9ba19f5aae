import Foundation
import RichPushTestSupport

/// `Tests/Support/webhook_receiver.py`: a receiver that checks every signature with the Python
/// snippet of docs/webhooks.md and logs each request as a JSON line. Stopped and started again on
/// the same port to play a receiver that is down for a while.
final class WebhookReceiverProcess: @unchecked Sendable {
    let directory: URL
    let logFile: URL
    let holdFile: URL
    let secret: String
    let status: Int
    /// A path whose requests are never answered (`--hang-path`), if any.
    let hangPath: String?
    /// Its port, held for the receiver's life: while it is stopped the port refuses connections,
    /// and no other test's server can take it before the restart.
    private let reservation: PortReservation
    var port: Int { reservation.port }
    private var child: ChildProcess?

    /// Starts a receiver on a free port.
    ///
    /// - Parameters:
    ///   - secret: the secret it verifies with.
    ///   - status: what it answers a verified request (302: a redirect to /elsewhere).
    ///   - hangPath: a path whose requests it never answers.
    init(secret: String, status: Int = 200, hangPath: String? = nil) async throws {
        directory = try Fixtures.temporaryDirectory("webhook-receiver")
        logFile = directory.appendingPathComponent("log.jsonl")
        holdFile = directory.appendingPathComponent("hold")
        self.secret = secret
        self.status = status
        self.hangPath = hangPath
        reservation = try PortReservation()
        try await start()
    }

    /// Starts it (again), on its port.
    func start() async throws {
        let child = ChildProcess(
            "python3",
            [
                Fixtures.supportDirectory.appendingPathComponent("webhook_receiver.py").path, "--port", String(port), "--secret", secret,
                "--log", logFile.path, "--status", String(status), "--hold-file", holdFile.path,
            ] + (hangPath.map { ["--hang-path", $0] } ?? []))
        let bound = try await child.start(waitingForPort: 30)
        guard bound == port else { throw TestSupportError("the webhook receiver listens on \(bound), not on its port \(port)") }
        self.child = child
    }

    /// Stops it (the port then refuses connections) and waits for the exit.
    func stop() async {
        await child?.terminate(grace: 3)
        child = nil
    }

    /// The URL serve posts to.
    var url: String { "http://127.0.0.1:\(port)/hooks" }

    /// Every request logged so far, in arrival order.
    ///
    /// Only complete lines: the receiver may be writing one while this reads (a line that spans
    /// a page can show half-written), and that one counts once its newline is there.
    func entries() throws -> [[String: Any]] {
        guard let text = try? String(contentsOf: logFile, encoding: .utf8) else { return [] }
        let complete = text.hasSuffix("\n") ? Substring(text) : text[..<(text.lastIndex(of: "\n") ?? text.startIndex)]
        return try complete.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw TestSupportError("log line is not an object: \(line)")
            }
            return object
        }
    }

    /// The verified deliveries, in arrival order.
    func verified() throws -> [[String: Any]] { try entries().filter { $0["verified"] as? Bool == true } }

    /// Polls (every 100 ms, up to `seconds`) until `condition` holds on the log.
    func wait(seconds: Double = 60, _ what: String, until condition: ([[String: Any]]) -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            if condition(try entries()) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSupportError("the webhook receiver did not get \(what) within \(seconds) s; log: \(try entries().suffix(5))")
    }

    deinit {
        child?.kill()
        try? FileManager.default.removeItem(at: directory)
    }
}
