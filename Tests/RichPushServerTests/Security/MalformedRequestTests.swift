import Foundation
import RichPushTestSupport
import Testing

/// Finding 11: malformed raw HTTP gets exactly one well-formed answer, or a clean close; never
/// libmicrohttpd 0.9.75's doubled status line and headers (its own answer to a Content-Length it
/// cannot read), and nothing pipelined behind such a request is served.
@Suite("malformed requests over raw sockets")
struct MalformedRequestTests {
    /// The status lines in what a socket received (a JSON body may end in a bare "\n").
    static func statusLines(_ text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("HTTP/1.") }
    }

    @Test(
        "negative, overflowing and non-numeric Content-Length: one 400/413 with a JSON body and the security headers, then close; a garbage request line: a clean close"
    )
    func oneAnswerOrACleanClose() async throws {
        let server = try await ServerProcess()
        let thread = DedicatedThread(name: "malformed")
        let port = server.port
        let sockets = RawSockets()
        let head = "POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        let requests = [
            head + "Content-Length: -5\r\n\r\npush_id=neg\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
            head + "Content-Length: 99999999999999999999999\r\n\r\n",
            head + "Content-Length: 1e3\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 12 \r\nContent-Length: abc\r\n\r\n",
            "GARBAGE\r\n\r\n",
            "GET\r\n\r\n",
        ]
        let opened = try await thread.run { () -> Int in
            // Two more: a kept-alive client that sends a good request first, and one whose head
            // arrives in two parts with other connections' requests in between.
            let n = sockets.open(requests.count + 2, port: port, sources: ["127.0.9.1"])
            sockets.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", at: requests.count)
            sockets.send(head, at: requests.count + 1)
            for (index, request) in requests.enumerated() { sockets.send(request, at: index) }
            return n
        }
        #expect(opened == requests.count + 2)
        // The kept-alive client's good request is answered before it sends the bad one (and the
        // split head's second part goes after that, other connections' requests in between).
        let firstAnswer = try await thread.run { sockets.waitUntilReceived(at: requests.count) { $0.contains("\r\n\r\n") } }
        #expect(Self.statusLines(firstAnswer) == ["HTTP/1.1 200 OK"], "\(firstAnswer)")
        try await thread.run {
            sockets.send("Content-Length: -1\r\n\r\n", at: requests.count + 1)
            sockets.send(head + "Content-Length: +7\r\n\r\npush_id", at: requests.count)
        }
        // Every one of them ends closed by the server (a loaded machine takes its time).
        #expect(try await thread.run { sockets.waitUntilClosed(atLeast: requests.count + 2) } == requests.count + 2)
        let received = try await thread.run { (0..<(requests.count + 2)).map { sockets.received(at: $0) } }
        try await thread.run { sockets.closeAll() }

        let expected: [(index: Int, status: String, code: String)] = [
            (0, "HTTP/1.1 400 Bad Request", "invalid_content_length"), (1, "HTTP/1.1 413 Content Too Large", "too_large"),
            (2, "HTTP/1.1 400 Bad Request", "invalid_content_length"), (3, "HTTP/1.1 400 Bad Request", "invalid_content_length"),
            (requests.count + 1, "HTTP/1.1 400 Bad Request", "invalid_content_length"),
        ]
        for (index, status, code) in expected {
            let text = received[index]
            #expect(Self.statusLines(text) == [status], "\(index): \(text)")
            #expect(text.contains("\"code\":\"\(code)\""), "\(index): \(text)")
            #expect(text.contains("\r\nConnection: close\r\n"))
            #expect(text.contains("\r\nX-Content-Type-Options: nosniff\r\n"))
            // One head, one body of exactly Content-Length bytes, nothing after it.
            let parts = text.components(separatedBy: "\r\n\r\n")
            #expect(parts.count == 2, "\(index): \(text)")
            let declared = parts[0].components(separatedBy: "\r\n").first { $0.hasPrefix("Content-Length: ") }.flatMap { Int($0.dropFirst(16)) }
            #expect(declared == parts.last?.utf8.count, "\(index): \(text)")
        }
        // The request pipelined behind the refused one was not served.
        #expect(!received[0].contains("\"status\""))
        // A garbage request line: closed without a byte.
        #expect(received[4] == "")
        #expect(received[5] == "")
        // The kept-alive client: its good request answered, then one answer for the bad one.
        #expect(Self.statusLines(received[requests.count]) == ["HTTP/1.1 200 OK", "HTTP/1.1 400 Bad Request"], "\(received[requests.count])")

        // Nothing was stored, and the server still answers.
        #expect(try await server.client().request("GET", "/v1/pushes/neg", headers: server.admin).status == 404)
        #expect(try await server.client().request("GET", "/healthz").status == 200)
        #expect(await server.terminate() == 0)
    }
}
