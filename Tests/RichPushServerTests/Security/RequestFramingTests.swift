import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Ambiguous request framing is refused before anything is read: conflicting Content-Length 400,
/// unknown Transfer-Encoding 501 with the connection closed, both headers 400.
@Suite("request framing")
struct RequestFramingTests {
    @Test("declared lengths: duplicates that agree are one length; conflicts, lists that disagree, TE+CL and unknown codings are refused")
    func rules() throws {
        func check(_ lengths: [String], _ encodings: [String] = []) -> Result<UInt64?, HTTPResponseError> {
            RequestFraming.declaredLength(contentLengths: lengths, transferEncodings: encodings)
        }
        #expect(try check(["12"]).get() == 12)
        #expect(try check(["12", "12"]).get() == 12)
        #expect(try check(["12, 12"]).get() == 12)
        #expect(try check([]).get() == nil)
        #expect(try check([], ["chunked"]).get() == nil)
        #expect(try check([], ["Chunked "]).get() == nil)
        func status(_ r: Result<UInt64?, HTTPResponseError>) -> Int? {
            if case .failure(let e) = r { return e.status }
            return nil
        }
        #expect(status(check(["9", "20"])) == 400)
        #expect(status(check(["9, 20"])) == 400)
        #expect(status(check(["+9"])) == 400)
        #expect(status(check(["18446744073709551616"])) == 413)
        #expect(status(check(["9"], ["chunked"])) == 400)
        #expect(status(check([], ["gzip"])) == 501)
        #expect(status(check([], ["gzip, chunked"])) == 501)
        #expect(status(check([], ["chunked", "chunked"])) == 501)
    }

    @Test(
        "over HTTP: conflicting duplicate Content-Length → 400 and nothing stored; unknown Transfer-Encoding → 501 and the connection closed at once; chunked receipts still work"
    )
    func overHTTP() async throws {
        let server = try await ServerProcess()
        let thread = DedicatedThread(name: "framing")
        let port = server.port
        let sockets = RawSockets()
        let requests = [
            "POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 13\r\nContent-Length: 40\r\n\r\npush_id=dupcl",
            "POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: gzip\r\n\r\npush_id=te",
            "POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nContent-Length: 10\r\n\r\na\r\npush_id=tc\r\n0\r\n\r\n",
        ]
        let opened = try await thread.run { () -> Int in
            let n = sockets.open(3, port: port, sources: ["127.0.8.1"])
            for (index, request) in requests.enumerated() { sockets.send(request, at: index) }
            return n
        }
        #expect(opened == 3)
        // The server answers and closes each; wait for that (a loaded machine takes its time).
        #expect(try await thread.run { sockets.waitUntilClosed(atLeast: 3) } == 3)
        let received = try await thread.run { (0..<3).map { sockets.received(at: $0) } }
        #expect(received[0].hasPrefix("HTTP/1.1 400"), "\(received[0])")
        #expect(received[0].contains("conflicting_content_length"))
        #expect(received[1].hasPrefix("HTTP/1.1 501"), "\(received[1])")
        #expect(received[1].contains("unsupported_transfer_encoding"))
        #expect(received[2].hasPrefix("HTTP/1.1 400"), "\(received[2])")
        #expect(received[2].contains("ambiguous_length"))
        // All three connections are closed by the server (the 501 does not wait for a body).
        #expect(try await thread.run { sockets.closedCount() } == 3)
        try await thread.run { sockets.closeAll() }

        let c = server.client()
        let chunked = try await c.raw(
            Data(
                "POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nf\r\npush_id=chunked\r\n0\r\n\r\n"
                    .utf8))
        #expect(chunked.status == 202)
        let same = try await c.raw(
            Data(
                "POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 12\r\nContent-Length: 12\r\n\r\npush_id=same"
                    .utf8))
        #expect(same.status == 202)
        for id in ["dupcl", "te", "tc"] {
            #expect(try await c.request("GET", "/v1/pushes/\(id)", headers: server.admin).status == 404)
        }
        #expect(try await c.request("GET", "/v1/pushes/chunked", headers: server.admin).status == 200)
        #expect(await server.terminate() == 0)
    }
}
