import Foundation

/// An OAuth2 token endpoint that never gives a token: Python's `http.server`, started for one
/// test, answering each POST by its path — `/500` 500 (JSON), `/429` 429, `/302` a redirect to a
/// URL with a user, password and query, `/html` 200 without `access_token`, anything else 400
/// `invalid_grant` ("Invalid JWT Signature."), as Google's token endpoint refuses a service
/// account. For FCM's token endpoint failures (`FCMAccessTokenProvider`, `FCMClient`, `serve`).
public final class FailingTokenEndpoint: @unchecked Sendable {
    static let script = """
        import http.server, json
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                path = self.path.split("?")[0]
                if path == "/500":
                    self.answer(500, b'{"error": "backend_error"}')
                elif path == "/429":
                    self.answer(429, b"slow down")
                elif path == "/302":
                    self.answer(302, b"", [("Location", "http://mallory:LOCPW@127.0.0.1/elsewhere?token=LOCQ")])
                elif path == "/html":
                    self.answer(200, b"<html>not a token</html>")
                else:
                    self.answer(400, b'{"error": "invalid_grant", "error_description": "Invalid JWT Signature."}')
            def answer(self, status, body, headers=()):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print("PORT", server.server_address[1], flush=True)
        server.serve_forever()
        """

    private let child: ChildProcess
    /// Its port on 127.0.0.1.
    public let port: Int

    /// Starts the server.
    ///
    /// - Throws: `TestSupportError` when python3 does not print its port within 30 s.
    public init() async throws {
        child = ChildProcess("/usr/bin/python3", ["-c", Self.script])
        port = try await child.start(waitingForPort: 30)
    }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops the server.
    public func stop() { child.kill() }
}
