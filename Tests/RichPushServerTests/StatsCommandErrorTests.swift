import Foundation
import RichPushTestSupport
import Testing

/// `richpush stats` pointed at something that is not a RichPush server: one clear line, never HTML.
@Suite("richpush stats against other servers")
struct StatsCommandErrorTests {
    /// A web server that is not RichPush: `/html…` answers an HTML 404 page, `/bare…` an empty
    /// 404, anything else an HTML 200 page.
    static let otherServer = """
        import http.server
        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                page = b'<!DOCTYPE html><html><head><title>Not Found</title></head><body><h1>Not Found</h1><p>' + b'x' * 400 + b'</p></body></html>'
                status, body = (404, page) if self.path.startswith('/html') else (404, b'') if self.path.startswith('/bare') else (200, page)
                self.send_response(status)
                self.send_header('Content-Type', 'text/html')
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(('127.0.0.1', 0), H)
        print('PORT', server.server_address[1], flush=True)
        server.serve_forever()
        """

    @Test("an HTML 404, an empty 404 and an HTML 200 each give a short 'is this a RichPush server?' message")
    func notRichPush() async throws {
        let other = ChildProcess("python3", ["-c", Self.otherServer])
        let port = try await other.start(waitingForPort: 30)
        defer { other.kill() }
        let base = "http://127.0.0.1:\(port)"
        for (server, arguments, status) in [
            ("\(base)/html", [String](), 404), ("\(base)/bare", [], 404), ("\(base)/bare", ["2018001"], 404), (base, [], 200),
        ] {
            let r = try await ChildProcess(Fixtures.richpushBinary.path, ["stats"] + arguments + ["--server", server, "--admin-token", "t"]).run(timeout: 60)
            #expect(r.status == 1, "\(server)")
            let message = r.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(message.contains("/v1/pushes"), "\(message)")
            #expect(message.contains("answered \(status)"), "\(message)")
            #expect(message.contains("is this a RichPush server? (start one with richpush serve"), "\(message)")
            #expect(!message.contains("<"), "\(message)")
            #expect(!message.contains("knows no push_id"), "\(message)")
            #expect(message.count < 300, "\(message)")
            #expect(!message.contains("\n"), "\(message)")
        }
        await other.terminate()
    }

    @Test("a RichPush server's own errors are still quoted: an unknown push id")
    func unknownPush() async throws {
        let server = try await ServerProcess()
        let r = try await ChildProcess(
            Fixtures.richpushBinary.path, ["stats", "nope", "--server", "http://127.0.0.1:\(server.port)", "--admin-token", ServerProcess.token]
        ).run(timeout: 60)
        #expect(r.status == 1)
        #expect(r.stderr.contains("the server knows no push_id 'nope'"))
        #expect(await server.terminate() == 0)
    }
}
