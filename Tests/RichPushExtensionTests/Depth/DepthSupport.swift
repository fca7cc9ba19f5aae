import Foundation
import RichPushTestSupport

/// Paths and process helpers shared by the extension-depth tests.
enum DepthSupport {
    /// The built `richpush-depth-helper` (next to the test bundle, as SwiftPM builds it).
    static var helperBinary: URL {
        var dir = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("richpush-depth-helper")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return Fixtures.packageRoot.appendingPathComponent(".build/debug/richpush-depth-helper")
    }

    /// Runs several helper processes at once and returns their (status, stdout), in order.
    static func runConcurrently(_ argumentLists: [[String]], timeout: Double = 60) async throws -> [(Int32, String)] {
        try await ChildProcess.runAll(argumentLists.map { (helperBinary.path, $0) }, timeout: timeout).map { ($0.status, $0.stdout) }
    }

    /// Runs the helper once.
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess(helperBinary.path, arguments).run(timeout: 60)
    }

    /// A Python one-shot, with its stdout.
    static func python(_ script: String, _ arguments: [String] = []) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess("python3", ["-c", script] + arguments).run(timeout: 60)
    }

    /// The depth server (`Tests/Support/depth_server.py`) and its port.
    static func receiptServer(port: Int = 0, statuses: String = "200") async throws -> (DepthServer, Int) {
        let server = try await DepthServer.start(port: port, statuses: statuses)
        return (server, server.port)
    }

    /// The receipts the depth server on `port` accepted, as parsed form fields.
    static func received(port: Int) async throws -> [[String: String]] {
        let data = try await DepthServer.get("http://127.0.0.1:\(port)/received")
        guard let list = try JSONSerialization.jsonObject(with: data) as? [[String: String]] else {
            throw TestSupportError("unexpected /received body")
        }
        return list
    }
}
