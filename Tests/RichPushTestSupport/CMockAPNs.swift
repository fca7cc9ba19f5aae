import Foundation
import RichPushCore

/// `benchmarks/mock-apns` (C: libnghttp2 + OpenSSL, one epoll thread), built with make on first
/// use and started for one test with its scripted, counted faults (`--goaway-after`,
/// `--refuse-every`, `--tcp-reset-after`, `--stall-after`, …: see the header of
/// `benchmarks/mock-apns/mock_apns.c`). It checks the ES256 provider token against `keyFile`,
/// answers 200 with an `apns-id`, and counts every /3/device request it processed per token.
public final class CMockAPNs: @unchecked Sendable {
    public static let keyID = "ABC123DEFG"
    public static let teamID = "TEAM123456"
    public static let topic = "com.example.app"

    public let directory: URL
    public let keyFile: URL
    public let caFile: URL
    public let port: Int
    private let child: ChildProcess

    /// The built mock, made once per test process.
    private static let binary = BuildOnce()

    /// Builds (if needed) and starts the mock.
    ///
    /// - Parameter options: more options (`--delay-ms 20`, `--goaway-after 200`, …).
    /// - Throws: when make, openssl or the mock fails.
    public init(options: [String] = []) async throws {
        let binary = try await Self.binary.path()
        directory = try Fixtures.temporaryDirectory("c-mock-apns")
        keyFile = directory.appendingPathComponent("AuthKey_\(Self.keyID).p8")
        caFile = directory.appendingPathComponent("ca.pem")
        let openssl = try await ChildProcess(
            "/bin/sh", ["-c", "openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out '\(keyFile.path)'"]
        ).run(timeout: 30)
        guard openssl.status == 0 else { throw TestSupportError("openssl failed: \(openssl.stderr)") }
        child = ChildProcess(
            binary,
            [
                "--key", keyFile.path, "--key-id", Self.keyID, "--team-id", Self.teamID, "--topic", Self.topic, "--ca-out", caFile.path,
                "--max-streams", "1000",
            ] + options)
        port = try await child.start(waitingForPort: 60)
        // The CA line follows PORT: wait until the file is written.
        for _ in 0..<600 where !child.standardOutput.contains("\nCA ") {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// `https://127.0.0.1:PORT`.
    public var baseURL: String { "https://127.0.0.1:\(port)" }

    /// The `richpush serve` arguments that point it at this mock.
    public func serveArguments() -> [String] {
        [
            "--apns-key", keyFile.path, "--apns-team-id", Self.teamID, "--apns-topic", Self.topic, "--apns-url", baseURL, "--apns-ca-file",
            caFile.path,
        ]
    }

    /// The mock's counters (`requests`, `per_token`, `goaways_sent`, `reset_tokens`, …), fetched
    /// with curl over HTTP/2 with the mock's CA.
    public func stats() async throws -> RichPushJSONValue {
        let run = try await ChildProcess("curl", ["-s", "--http2", "--cacert", caFile.path, "\(baseURL)/stats"]).run(timeout: 60)
        guard run.status == 0 else { throw TestSupportError("curl /stats: \(run.stderr)") }
        return try RichPushJSONValue.parse(Data(run.stdout.utf8))
    }

    /// Tokens the mock processed other than once, among `tokens` (token → count).
    public static func notOnce(_ tokens: [String], _ stats: RichPushJSONValue) -> [String: Int] {
        var wrong: [String: Int] = [:]
        for token in tokens {
            let count = stats["per_token"]?[token]?.intValue ?? 0
            if count != 1 { wrong[token] = count }
        }
        return wrong
    }

    /// The strings of a list in the stats (`reset_tokens`, `stalled_tokens`, …).
    public static func list(_ stats: RichPushJSONValue, _ key: String) -> [String] {
        stats[key]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// Stops the mock (SIGKILL) and removes its files; safe in `defer`.
    public func stop() {
        child.kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `make -C benchmarks/mock-apns`, once.
    private actor BuildOnce {
        private var built: String?

        func path() async throws -> String {
            if let built { return built }
            let source = Fixtures.packageRoot.appendingPathComponent("benchmarks/mock-apns")
            let run = try await ChildProcess("make", ["-s", "-C", source.path]).run(timeout: 300)
            guard run.status == 0 else {
                throw TestSupportError("make -C benchmarks/mock-apns failed (libnghttp2-dev, libssl-dev: scripts/install-deps.sh): \(run.stderr)")
            }
            let path = source.appendingPathComponent("mock-apns").path
            built = path
            return path
        }
    }
}
