import Foundation
import RichPushTestSupport

/// The ext branch's `Tests/Support/media_server.py` on 127.0.0.1, an ephemeral port.
final class LocalMediaServer: Sendable {
    private let child: ChildProcess
    /// The port it listens on.
    let port: Int

    init() throws {
        child = ChildProcess("python3", [Fixtures.supportDirectory.appendingPathComponent("media_server.py").path])
        port = try child.start()
    }

    /// `http://127.0.0.1:PORT` + path.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The receipt bodies the server recorded.
    func receipts() throws -> [String] {
        guard let url = URL(string: url("/receipts/log")) else { throw TestSupportError("bad receipts log URL") }
        let data = try Data(contentsOf: url)
        return (try JSONSerialization.jsonObject(with: data) as? [String]) ?? []
    }

    func stop() { child.terminate() }

    deinit { child.terminate() }
}
