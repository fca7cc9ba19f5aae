import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport

/// Runs `Tests/Support/mock_apns.py` with a throwaway P-256 key and its own CA, for one test.
/// `@unchecked Sendable`: set up once in `init` and only read afterwards (the child process is its own).
final class MockAPNs: @unchecked Sendable {
    static let keyID = "ABC123DEFG"
    static let teamID = "TEAM123456"
    static let topic = "com.example.app"

    let directory: URL
    let keyFile: URL
    let caFile: URL
    let port: Int
    private let process: ChildProcess
    private let statsTransport: HTTP2Client

    /// Starts the mock.
    /// - Parameters:
    ///   - script: token → responses (`[["status": 410, "reason": "Unregistered"]]`).
    ///   - keyIDSeen: the `kid` the mock expects.
    /// The client certificate (PEM, certificate + key) when started with `clientCertificate: true`.
    let clientCertificateFile: URL?

    /// The channel management host's port, when started with `channels: true` (Apple: its own host and port).
    let managePort: Int?

    /// `options` are more `mock_apns.py` arguments (`--initial-streams 1`, `--never-answer`);
    /// `channels` starts the channel management host too (`--manage-port-out`).
    init(
        script: [String: [[String: Any]]] = [:], keyIDSeen: String = MockAPNs.keyID, clientCertificate: Bool = false, channels: Bool = false,
        options: [String] = []
    ) async throws {
        directory = try Fixtures.temporaryDirectory("mock-apns")
        keyFile = directory.appendingPathComponent("AuthKey_\(Self.keyID).p8")
        caFile = directory.appendingPathComponent("ca.pem")
        try await Self.makeKey(at: keyFile)
        let scriptFile = directory.appendingPathComponent("script.json")
        try JSONSerialization.data(withJSONObject: script).write(to: scriptFile)
        clientCertificateFile = clientCertificate ? directory.appendingPathComponent("client.pem") : nil
        let manageFile = directory.appendingPathComponent("manage-port")
        process = ChildProcess(
            "python3",
            [
                Fixtures.supportDirectory.appendingPathComponent("mock_apns.py").path,
                "--key", keyFile.path, "--key-id", keyIDSeen, "--team-id", Self.teamID, "--topic", Self.topic,
                "--ca-out", caFile.path, "--script", scriptFile.path,
            ] + (clientCertificateFile.map { ["--client-cert-out", $0.path] } ?? []) + (channels ? ["--manage-port-out", manageFile.path] : [])
                + options)
        port = try await process.start(waitingForPort: 30)
        // The management port's file is written before PORT is printed.
        managePort = channels ? Int(try String(contentsOf: manageFile, encoding: .utf8)) : nil
        usesTLS = !options.contains("--no-tls")
        // The CA file is written before PORT is printed.
        var configuration = TransportConfiguration()
        configuration.caFile = usesTLS ? caFile.path : nil
        configuration.clientCertificate = clientCertificateFile.map { .init(certificateFile: $0.path) }
        // /stats lists every token: far over the 16 KiB an APNs answer is allowed.
        configuration.maximumResponseBodyBytes = 16 << 20
        statsTransport = try HTTP2Client(configuration: configuration)
    }

    /// Whether it speaks TLS (`https://`), or HTTP/2 without TLS by prior knowledge (`--no-tls`: `http://`).
    let usesTLS: Bool

    var baseURL: String { "\(usesTLS ? "https" : "http")://127.0.0.1:\(port)" }

    /// Makes a fresh P-256 key in PKCS#8 PEM (the `.p8` form) with the openssl CLI.
    static func makeKey(at url: URL) async throws {
        let run = try await ChildProcess(
            "/bin/sh", ["-c", "openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out '\(url.path)'"]
        ).run(timeout: 30)
        guard run.status == 0 else { throw TestSupportError("openssl failed: \(run.stderr)") }
    }

    /// The mock's counters.
    func stats() async throws -> RichPushJSONValue {
        let response = try await statsTransport.send(TransportRequest(method: "GET", url: baseURL + "/stats"))
        return try RichPushJSONValue.parse(response.body)
    }

    /// Adds scripted responses while running.
    func script(_ script: [String: [[String: Any]]]) async throws {
        let body = try JSONSerialization.data(withJSONObject: script)
        _ = try await statsTransport.send(TransportRequest(method: "POST", url: baseURL + "/control/script", body: body))
    }

    /// A token manager over this mock's key.
    func tokenManager(clock: any ProviderClock = SystemClock(), keyID: String = MockAPNs.keyID) throws -> APNsTokenManager {
        APNsTokenManager(signer: try ES256Signer(contentsOf: keyFile), keyID: keyID, teamID: Self.teamID, clock: clock)
    }

    /// The names `richpush send` gives the APNs settings (the CLI's `ProviderSettingNames.send`),
    /// so that messages name the options a reader would change.
    static let sendOptionNames = APNsSettingNames(
        key: "--key", keyID: "--key-id", teamID: "--team-id", topic: "--topic", sandbox: "--sandbox", url: "--apns-url")

    /// A client for this mock.
    func client(
        manager: APNsTokenManager, handler: (any DeviceTokenStateHandler)? = nil,
        retry: APNsRetryPolicy = APNsRetryPolicy(maxAttempts: 4, baseDelay: 0.01, maxDelay: 0.05), streams: Int = 100
    ) throws -> APNsClient {
        var configuration = TransportConfiguration()
        configuration.caFile = caFile.path
        configuration.maxConcurrentStreams = streams
        return try APNsClient(
            environment: .custom(baseURL), authentication: .token(manager), transport: configuration,
            retry: retry, tokenStateHandler: handler, settingNames: Self.sendOptionNames
        )
    }

    /// The broadcast environment of this mock: channel requests to the management port, broadcasts to the main one.
    var broadcastEnvironment: APNsBroadcastEnvironment {
        let scheme = usesTLS ? "https" : "http"
        return .custom(managementURL: "\(scheme)://127.0.0.1:\(managePort ?? port)", broadcastURL: baseURL)
    }

    /// A broadcast client for this mock (started with `channels: true`).
    func broadcastClient(
        manager: APNsTokenManager, bundleID: String = MockAPNs.topic,
        retry: APNsRetryPolicy = APNsRetryPolicy(maxAttempts: 4, baseDelay: 0.01, maxDelay: 0.05)
    ) throws -> APNsBroadcastClient {
        var configuration = TransportConfiguration()
        configuration.caFile = usesTLS ? caFile.path : nil
        return try APNsBroadcastClient(
            bundleID: bundleID, environment: broadcastEnvironment, authentication: .token(manager), transport: configuration, retry: retry)
    }

    /// Adds `count` channels of `policy` to the mock at once (`POST /control/channels`).
    func addChannels(_ count: Int, policy: Int = 0) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["bundle": Self.topic, "count": count, "policy": policy])
        let response = try await statsTransport.send(TransportRequest(method: "POST", url: baseURL + "/control/channels", body: body))
        guard response.status == 200 else { throw TestSupportError("/control/channels answered \(response.status)") }
    }

    /// Stops the mock without waiting (safe in `defer`): the transport's thread and the killed
    /// process wind down on their own.
    func stop() {
        statsTransport.shutdown()
        process.kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A well-formed device token: 64 hex digits starting with `prefix`.
    static func token(_ prefix: String) -> String {
        prefix + String(repeating: "0", count: 64 - prefix.count)
    }

    static func notification(
        _ payload: RichPushPayloadBuilder = {
            var p = RichPushPayloadBuilder(title: "お知らせ", body: "テスト")
            p.mediaURL = "https://example.com/001.jpg"
            return p
        }()
    ) -> APNsNotification {
        APNsNotification(payload: payload.jsonData(), topic: topic)
    }
}
