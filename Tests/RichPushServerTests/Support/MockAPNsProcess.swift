import Foundation
import RichPushCore
import RichPushTestSupport

/// `Tests/Support/mock_apns.py` (HTTP/2 over TLS, throwaway CA from trustme) with a fresh P-256
/// `.p8` key, for `richpush serve --apns-url … --apns-ca-file …`.
final class MockAPNsProcess: APNsMockCounts, @unchecked Sendable {
    static let keyID = "ABC123DEFG"
    static let teamID = "TEAM123456"
    static let topic = "com.example.app"

    let directory: URL
    let keyFile: URL
    let caFile: URL
    let port: Int
    private let child: ChildProcess

    /// Starts the mock.
    /// - Parameters:
    ///   - script: token → responses, e.g. `[token: [["status": 410, "reason": "Unregistered"]]]`.
    ///   - delayMs: each answer this many ms after its request (0: at once).
    init(script: [String: [[String: Any]]] = [:], delayMs: Int = 0) async throws {
        directory = try Fixtures.temporaryDirectory("serve-apns")
        keyFile = directory.appendingPathComponent("AuthKey_\(Self.keyID).p8")
        caFile = directory.appendingPathComponent("ca.pem")
        let openssl = try await ChildProcess(
            "/bin/sh", ["-c", "openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out '\(keyFile.path)'"]
        ).run(timeout: 30)
        guard openssl.status == 0 else { throw TestSupportError("openssl failed: \(openssl.stderr)") }
        let scriptFile = directory.appendingPathComponent("script.json")
        try JSONSerialization.data(withJSONObject: script).write(to: scriptFile)
        child = ChildProcess(
            "python3",
            [
                Fixtures.supportDirectory.appendingPathComponent("mock_apns.py").path,
                "--key", keyFile.path, "--key-id", Self.keyID, "--team-id", Self.teamID, "--topic", Self.topic,
                "--ca-out", caFile.path, "--script", scriptFile.path, "--delay-ms", String(delayMs),
            ])
        port = try await child.start(waitingForPort: 30)
    }

    /// The `richpush serve` arguments that point it at this mock (team id overridable to provoke
    /// `InvalidProviderToken`).
    func serveArguments(teamID: String = MockAPNsProcess.teamID) -> [String] {
        [
            "--apns-key", keyFile.path, "--apns-team-id", teamID, "--apns-topic", Self.topic,
            "--apns-url", "https://127.0.0.1:\(port)", "--apns-ca-file", caFile.path,
        ]
    }

    /// The mock's counters (`requests`, `per_token`, `last_body_b64`, …), fetched with curl over
    /// HTTP/2 with the mock's CA.
    func stats() async throws -> RichPushJSONValue {
        let run = try await ChildProcess("curl", ["-s", "--http2", "--cacert", caFile.path, "https://127.0.0.1:\(port)/stats"]).run(timeout: 30)
        guard run.status == 0 else { throw TestSupportError("curl /stats: \(run.stderr)") }
        return try RichPushJSONValue.parse(Data(run.stdout.utf8))
    }

    /// A well-formed device token: 64 hex digits starting with `prefix`.
    static func token(_ prefix: String) -> String {
        prefix + String(repeating: "0", count: 64 - prefix.count)
    }

    /// Stops the mock without waiting (safe in `defer`): SIGKILL, the exit is reaped by
    /// Foundation's child watcher.
    func stop() {
        child.kill()
        try? FileManager.default.removeItem(at: directory)
    }
}
