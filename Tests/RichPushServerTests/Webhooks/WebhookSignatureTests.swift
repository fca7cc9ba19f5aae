import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The `RichPush-Signature` header: Stripe's `t=…,v1=…` over `t.body`, checked against
/// OpenSSL's command line, and refused for a wrong secret, an altered body or an old timestamp.
@Suite("webhooks: the signature")
struct WebhookSignatureTests {
    @Test("t=UNIX,v1=hex HMAC-SHA256 of \"t.body\", as openssl dgst computes it")
    func matchesOpenSSL() async throws {
        let body = Data(#"{"data":{},"id":"evt_1","type":"push.sent"}"#.utf8)
        let secret = "whsec_0123456789abcdef"
        let header = try WebhookSignature.header(body: body, secret: Data(secret.utf8), timestamp: 1_700_000_000)
        let run = try await ChildProcess(
            "/bin/sh", ["-c", "printf '%s' \"$1\" | openssl dgst -sha256 -hmac \"$2\" -r", "sh", "1700000000." + String(decoding: body, as: UTF8.self), secret]
        ).run(timeout: 30)
        let hex = try #require(run.stdout.split(separator: " ").first.map(String.init))
        #expect(header == "t=1700000000,v1=\(hex)")
        #expect(WebhookSignature.verify(header: header, body: body, secret: Data(secret.utf8), nowSeconds: 1_700_000_100))
    }

    @Test("a wrong secret, an altered body, an old or future timestamp, a malformed header: refused")
    func refusals() throws {
        let body = Data(#"{"id":"evt_2"}"#.utf8)
        let secret = Data("0123456789abcdef".utf8)
        let header = try WebhookSignature.header(body: body, secret: secret, timestamp: 1_000_000)
        #expect(WebhookSignature.verify(header: header, body: body, secret: secret, nowSeconds: 1_000_300))
        #expect(!WebhookSignature.verify(header: header, body: body, secret: Data("0123456789abcdeX".utf8), nowSeconds: 1_000_000))
        #expect(!WebhookSignature.verify(header: header, body: Data(#"{"id":"evt_3"}"#.utf8), secret: secret, nowSeconds: 1_000_000))
        #expect(!WebhookSignature.verify(header: header, body: body, secret: secret, nowSeconds: 1_000_301))
        #expect(!WebhookSignature.verify(header: header, body: body, secret: secret, nowSeconds: 999_699))
        #expect(
            !WebhookSignature.verify(header: "v1=" + header.split(separator: "=").last.map(String.init)!, body: body, secret: secret, nowSeconds: 1_000_000))
        #expect(!WebhookSignature.verify(header: "t=1000000,v1=zz", body: body, secret: secret, nowSeconds: 1_000_000))
        // A second v1 (another secret during rotation) is fine as long as one matches.
        #expect(WebhookSignature.verify(header: header + ",v1=00", body: body, secret: secret, nowSeconds: 1_000_000))
    }

    @Test("event ids are evt_ + 32 hex digits and unique")
    func eventIDs() {
        let ids = (0..<1_000).map { _ in WebhookEvent.newID() }
        #expect(Set(ids).count == 1_000)
        #expect(ids.allSatisfy { $0.hasPrefix("evt_") && $0.count == 36 && $0.dropFirst(4).allSatisfy(\.isHexDigit) })
    }

    @Test("backoff doubles from the minimum up to the maximum, jittered between half and all of it")
    func backoff() {
        var settings = WebhookSettings(endpoints: [])
        settings.retryBaseSeconds = 5
        settings.retryMaxSeconds = 300
        for (attempt, full) in [(1, 5.0), (2, 10.0), (3, 20.0), (7, 300.0), (60, 300.0)] {
            for _ in 0..<50 {
                let d = settings.retryDelay(afterAttempt: attempt)
                #expect(d >= full / 2 && d <= full, "attempt \(attempt): \(d)")
            }
        }
    }
}

/// The documented snippets stay the ones the tests run or compile.
@Suite("webhooks: the documented verification snippets")
struct WebhookDocumentedSnippetTests {
    /// The code block after `<!-- verify: LANGUAGE -->` in docs/webhooks.md.
    static func snippet(_ language: String) throws -> String {
        let text = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/webhooks.md"), encoding: .utf8)
        let marker = "<!-- verify: \(language) -->\n```\(language)\n"
        guard let start = text.range(of: marker), let end = text.range(of: "```", range: start.upperBound..<text.endIndex) else {
            throw TestSupportError("docs/webhooks.md has no \(language) verification snippet")
        }
        return String(text[start.upperBound..<end.lowerBound])
    }

    @Test("the Swift snippet is Tests/IOSCompile/WebhookReceiver/WebhookVerification.swift, which the iOS type-check compiles with CryptoKit")
    func swiftSnippet() throws {
        let file = try String(
            contentsOf: Fixtures.packageRoot.appendingPathComponent("Tests/IOSCompile/WebhookReceiver/WebhookVerification.swift"), encoding: .utf8)
        #expect(try Self.snippet("swift") == file)
    }

    @Test("the Python snippet accepts RichPush's own signature and refuses a wrong secret, an altered body, an old timestamp")
    func pythonSnippet() async throws {
        let body = #"{"data":{"token":"ab"},"id":"evt_00","type":"token.bad"}"#
        let now = Int(Date().timeIntervalSince1970)
        let good = try WebhookSignature.header(body: Data(body.utf8), secret: Data("whsec-doc-0123456789".utf8), timestamp: now)
        let old = try WebhookSignature.header(body: Data(body.utf8), secret: Data("whsec-doc-0123456789".utf8), timestamp: now - 301)
        let script =
            try Self.snippet("python") + """
                import sys
                h, o, b = sys.argv[1], sys.argv[2], sys.argv[3].encode()
                print(verify(h, b, "whsec-doc-0123456789"), verify(h, b, "whsec-doc-0123456780"), verify(h, b + b" ", "whsec-doc-0123456789"), verify(o, b, "whsec-doc-0123456789"))
                """
        let run = try await ChildProcess("python3", ["-c", script, good, old, body]).run(timeout: 30)
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "True False False False", "\(run.stderr)")
    }
}
