import Foundation
import RichPushCore
import RichPushProvider
import RichPushTestSupport
import Testing

/// `CurlHTTPTransport` (FCM's OAuth2 token requests, webhook deliveries) against Python's own
/// `http.server` (a server RichPush did not write), started by the test on loopback.
@Suite("CurlHTTPTransport against Python's http.server", .serialized)
struct CurlHTTPTransportTests {
    /// `python3 -m http.server`'s handler serving `directory`, on a free port printed as `PORT n`.
    static func server(_ directory: URL) async throws -> (ChildProcess, Int) {
        let script = """
            import functools, http.server, sys
            handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            print("PORT", server.server_address[1], flush=True)
            server.serve_forever()
            """
        let child = ChildProcess("/usr/bin/python3", ["-c", script, directory.path])
        return (child, try await child.start(waitingForPort: 30))
    }

    @Test("40 requests through 2 slots: every one answered with the file, in order; a 404 is an answer; the body bound marks truncation")
    func boundedRequests() async throws {
        let directory = try Fixtures.temporaryDirectory("curl-transport")
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = Data((0..<3_000).map { UInt8($0 % 251) })
        try body.write(to: directory.appendingPathComponent("token.json"))
        let (child, port) = try await Self.server(directory)
        defer { child.kill() }
        var configuration = TransportConfiguration()
        configuration.maxConcurrentStreams = 2
        configuration.maxConnectionsPerHost = 2
        let transport = try CurlHTTPTransport(configuration: configuration)
        let requests = (0..<40).map { i in
            TransportRequest(method: "GET", url: "http://127.0.0.1:\(port)/" + (i == 7 ? "missing.json" : "token.json?n=\(i)"))
        }
        let outcomes = await transport.perform(requests)
        #expect(outcomes.count == 40)
        for (i, outcome) in outcomes.enumerated() {
            guard case .answered(let response) = outcome else {
                Issue.record("request \(i): \(outcome)")
                continue
            }
            #expect(response.status == (i == 7 ? 404 : 200), "request \(i)")
            if i != 7 {
                #expect(response.body == body, "request \(i)")
                #expect(!response.bodyTruncated)
                #expect(response.headers["content-length"] == "3000")
            }
        }
        await transport.close()

        var small = configuration
        small.maximumResponseBodyBytes = 1_000
        let bounded = try CurlHTTPTransport(configuration: small)
        let answer = try await bounded.send(TransportRequest(method: "GET", url: "http://127.0.0.1:\(port)/token.json"))
        #expect(answer.body == body.prefix(1_000))
        #expect(answer.bodyTruncated)
        await bounded.close()
    }

    @Test("a refused connection: failed, not sent, connection_failed naming the URL as `describe` writes it, without hints when asked")
    func refused() async throws {
        let closed = try PortReservation()  // bound, never listening: connections are refused
        let transport = try CurlHTTPTransport(describe: { _ in "https://hooks.example/in" }, hints: false)
        let outcomes = await transport.perform([TransportRequest(url: "http://127.0.0.1:\(closed.port)/in?secret=s", body: Data("{}".utf8))])
        guard case .failed(let error, let sent)? = outcomes.first else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(!sent)
        #expect(error.code == .connectionFailed)
        #expect(error.message.hasPrefix("no answer: POST https://hooks.example/in failed: "), "\(error.message)")
        #expect(!error.message.contains("secret") && !error.message.contains("check the host"), "\(error.message)")
        await transport.close()
        // After close, a request fails at once, unsent.
        let late = await transport.perform([TransportRequest(url: "http://127.0.0.1:\(closed.port)/in")])
        if case .failed(let error, let sent)? = late.first {
            #expect(!sent && error.code == .transport, "\(error)")
        } else {
            Issue.record("\(late)")
        }
        withExtendedLifetime(closed) {}
    }
}
