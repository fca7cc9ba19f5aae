import Foundation
import RichPushProvider
import RichPushTestSupport
import Testing

/// `--apns-url http://…` (h2c) either works or is refused before any request (issue 22, item
/// 10): Debian 12's libcurl 7.88 fails every request after the first on a reused h2c connection
/// (curl 16), so `send` and `serve` refuse it there as a usage error (exit 64) saying why.
@Suite("--apns-url http:// (HTTP/2 without TLS)")
struct CleartextAPNsURLTests {
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try await ChildProcess(Fixtures.richpushBinary.path, arguments).run(timeout: 60)
        return (result.status, result.stdout, result.stderr)
    }

    static func key(in directory: URL) async throws -> URL {
        let key = directory.appendingPathComponent("AuthKey_ABC123DEFG.p8")
        let made = try await ChildProcess(
            "/bin/sh", ["-c", "openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out '\(key.path)'"]
        ).run(timeout: 30)
        #expect(made.status == 0, "\(made.stderr)")
        return key
    }

    @Test func sendAndServeRefuseH2cWhereLibcurlCannotReuseItsConnections() async throws {
        let directory = try Fixtures.temporaryDirectory("h2c")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try await Self.key(in: directory)
        let payload = directory.appendingPathComponent("payload.json")
        try Data(#"{"aps": {"alert": "hi"}}"#.utf8).write(to: payload)
        let url = "http://127.0.0.1:9"
        let send = try await Self.run([
            "send", "--payload", payload.path, "--token", String(repeating: "ab", count: 32), "--topic", "com.example.app", "--key", key.path,
            "--key-id", "ABC123DEFG", "--team-id", "TEAM123456", "--apns-url", url,
        ])
        let serve = try await Self.run([
            "serve", "--port", "0", "--db", directory.appendingPathComponent("s.sqlite").path, "--admin-token", "test-admin-token-0123456789",
            "--apns-key", key.path, "--apns-key-id", "ABC123DEFG", "--apns-team-id", "TEAM123456", "--apns-topic", "com.example.app",
            "--apns-url", url,
        ])
        for (name, run) in [("send", send), ("serve", serve)] {
            if CleartextHTTP2.isSupported {
                // A libcurl that reuses h2c connections: the URL is taken (the closed port fails later, not as usage).
                #expect(run.status != 64, "\(name): \(run.stderr)")
                #expect(!run.stderr.contains("h2c"), "\(name): \(run.stderr)")
            } else {
                #expect(run.status == 64, "\(name): \(run.status) \(run.stderr)")
                #expect(run.stderr.contains("'--apns-url \(url)': HTTP/2 without TLS (h2c) does not work with libcurl 7."), "\(name): \(run.stderr)")
                #expect(run.stderr.contains("use an https:// endpoint"), "\(name): \(run.stderr)")
                #expect(!run.stdout.contains("PORT"), "\(name) must not start")
            }
        }
    }
}
