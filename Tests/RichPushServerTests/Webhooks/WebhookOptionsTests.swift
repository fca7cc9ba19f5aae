import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// `richpush serve`'s webhook flags refuse what cannot work (exit 64 naming the fix), and the
/// endpoint's URL is shown without its credentials.
@Suite("webhooks: serve options and endpoint URLs")
struct WebhookOptionsTests {
    /// Runs `richpush serve` with `arguments` on a fresh SQLite file; it must exit at once.
    func serve(_ arguments: [String], environment: [String: String] = [:]) async throws -> ChildProcess.Finished {
        let directory = try Fixtures.temporaryDirectory("webhook-options")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await ChildProcess(
            Fixtures.richpushBinary.path,
            ["serve", "--port", "0", "--db", directory.appendingPathComponent("s.sqlite").path, "--admin-token", "test-admin-token-0123456789"]
                + arguments, environment: environment
        ).run(timeout: 60)
    }

    @Test(
        "bad webhook flags exit 64 naming the fix",
        arguments: [
            (["--webhook-url", "http://127.0.0.1:9/h"], "give --webhook-secret"),
            (["--webhook-secret", "0123456789abcdef"], "--webhook-secret goes with --webhook-url"),
            (["--webhook-url", "http://127.0.0.1:9/h", "--webhook-secret", "short"], "give at least 16"),
            (["--webhook-url", "ftp://example.com/h", "--webhook-secret", "0123456789abcdef"], "must be an http:// or https:// URL"),
            (["--webhook-url", "token.gone=http://127.0.0.1:9/h", "--webhook-secret", "0123456789abcdef"], "unknown event type 'token.gone'"),
            (
                [
                    "--webhook-url", "http://127.0.0.1:9/a", "--webhook-url", "http://127.0.0.1:9/b", "--webhook-secret", "0123456789abcdef",
                    "--webhook-secret", "0123456789abcdef", "--webhook-secret", "0123456789abcdef",
                ],
                "2 webhook URLs and 3 secrets"
            ),
            (["--webhook-url", "http://127.0.0.1:9/h", "--webhook-secret", "0123456789abcdef", "--webhook-timeout", "0"], "--webhook-timeout 0"),
            (
                ["--webhook-url", "http://127.0.0.1:9/h", "--webhook-secret", "0123456789abcdef", "--webhook-retry-min", "10", "--webhook-retry-max", "5"],
                "must be at least --webhook-retry-min"
            ),
            (["--webhook-url", "http://127.0.0.1:9/h", "--webhook-secret", "0123456789abcdef", "--webhook-give-up-hours", "1e9"], "at most 720"),
        ])
    func refused(_ arguments: [String], _ message: String) async throws {
        let run = try await serve(arguments)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test("the secret from RICHPUSH_WEBHOOK_SECRET is enough, and the banner names the endpoint without its credentials")
    func environmentSecret() async throws {
        let directory = try Fixtures.temporaryDirectory("webhook-options")
        defer { try? FileManager.default.removeItem(at: directory) }
        let child = ChildProcess(
            Fixtures.richpushBinary.path,
            [
                "serve", "--port", "0", "--db", directory.appendingPathComponent("s.sqlite").path, "--admin-token", "test-admin-token-0123456789",
                "--webhook-url", "token.inactive,token.bad=http://user:pass@127.0.0.1:9/hooks?key=abc",
            ], environment: ["RICHPUSH_WEBHOOK_SECRET": "0123456789abcdef0123"])
        _ = try await child.start(waitingForPort: 30)
        let end = ContinuousClock.now + .seconds(10)
        while !child.standardOutput.contains("webhooks:"), ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(50)) }
        await child.terminate()
        #expect(child.standardOutput.contains("webhooks:  POST http://127.0.0.1:9/hooks (token.bad,token.inactive;"), "\(child.standardOutput)")
        #expect(!child.standardOutput.contains("pass"))
        #expect(!child.standardOutput.contains("key=abc"))
    }

    @Test("display URLs drop user, password and query; keys depend on the URL alone")
    func displayURL() {
        let a = WebhookEndpoint(url: "https://u:p@hooks.example.com:8443/in?token=s3cret", secret: Data("x".utf8))
        #expect(a.displayURL == "https://hooks.example.com:8443/in")
        let b = WebhookEndpoint(url: "https://u:p@hooks.example.com:8443/in?token=s3cret", secret: Data("y".utf8), types: [.pushSent])
        #expect(a.key == b.key)
        #expect(a.key.hasPrefix("whe_") && a.key.count == 20)
        #expect(WebhookEndpoint(url: "http://[::1]:9/h", secret: Data()).displayURL == "http://[::1]:9/h")
        #expect(WebhookEndpoint.problem(with: "http://10.0.0.5/hooks") == nil, "private addresses are the operator's choice")
        #expect(WebhookEndpoint.problem(with: "https://example.com/h#frag") == "must not have a #fragment")
        #expect(WebhookEndpoint.problem(with: "http:///nohost") != nil)
    }
}
