import Foundation
import RichPushCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Tests/Support/mock_fcm.py` (Google's OAuth2 token endpoint and FCM HTTP v1, HTTP/1.1) with a
/// fresh RSA service-account key, and the service-account JSON file that points at it.
public final class MockFCMProcess: @unchecked Sendable {
    public static let project = "demo-project"
    public static let clientEmail = "richpush@demo-project.iam.gserviceaccount.com"

    public let directory: URL
    /// The service-account JSON (`project_id`, `client_email`, `private_key`, `token_uri` = this mock).
    public let serviceAccountFile: URL
    public let port: Int
    private let child: ChildProcess

    /// Starts the mock.
    /// - Parameter script: token → answers, e.g. `["t": [["status": 429, "errorCode": "QUOTA_EXCEEDED", "retryAfter": "1"]]]`.
    public init(script: [String: [[String: Any]]] = [:]) async throws {
        directory = try Fixtures.temporaryDirectory("mock-fcm")
        let key = directory.appendingPathComponent("sa.pem")
        try Data(try await Self.sharedKey.value.utf8).write(to: key)
        let scriptFile = directory.appendingPathComponent("script.json")
        try JSONSerialization.data(withJSONObject: script).write(to: scriptFile)
        child = ChildProcess(
            "python3",
            [
                Fixtures.supportDirectory.appendingPathComponent("mock_fcm.py").path,
                "--key", key.path, "--client-email", Self.clientEmail, "--project", Self.project, "--script", scriptFile.path,
            ])
        port = try await child.start(waitingForPort: 30)
        serviceAccountFile = directory.appendingPathComponent("service-account.json")
        let json: RichPushJSONValue = .object([
            "type": .string("service_account"), "project_id": .string(Self.project),
            "client_email": .string(Self.clientEmail),
            "private_key": .string(try String(contentsOf: key, encoding: .utf8)),
            "token_uri": .string("http://127.0.0.1:\(port)/token"),
        ])
        try json.jsonData().write(to: serviceAccountFile)
    }

    /// One RSA-2048 service-account key per test process (openssl genpkey takes a while; every
    /// mock gets its own copy of the file).
    private static let sharedKey = Task<String, any Error> {
        let directory = try Fixtures.temporaryDirectory("mock-fcm-key")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("sa.pem")
        let made = try await ChildProcess("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key.path]).run(timeout: 60)
        guard made.status == 0 else { throw TestSupportError("openssl genpkey: \(made.stderr)") }
        return try String(contentsOf: key, encoding: .utf8)
    }

    /// `http://127.0.0.1:PORT`: the FCM base URL (`--fcm-url`).
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The mock's counters: `token_fetches`, `sends`, `accepted`, `per_token`, `last_message`,
    /// `last_body_b64`, `max_concurrent`.
    public func stats() async throws -> RichPushJSONValue {
        try RichPushJSONValue.parse(try await request("GET", "/stats"))
    }

    /// Adds scripted answers while running.
    public func script(_ script: [String: [[String: Any]]]) async throws {
        _ = try await request("POST", "/control/script", body: try JSONSerialization.data(withJSONObject: script))
    }

    /// Forgets every access token issued so far: the next send gets 401.
    public func revokeAccessTokens() async throws {
        _ = try await request("POST", "/control/revoke")
    }

    /// The raw bytes of the last messages:send body.
    public func lastBody() async throws -> Data {
        guard let text = try await stats()["last_body_b64"]?.stringValue, let data = Data(base64Encoded: text) else {
            throw TestSupportError("mock FCM got no message yet")
        }
        return data
    }

    private func request(_ method: String, _ path: String, body: Data? = nil) async throws -> Data {
        guard let url = URL(string: endpoint + path) else { throw TestSupportError("bad URL") }
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = method
        request.httpBody = body
        let (data, _) = try await URLSession.shared.data(for: request)
        return data
    }

    /// Stops the mock without waiting (safe in `defer`).
    public func stop() {
        child.kill()
        try? FileManager.default.removeItem(at: directory)
    }
}
