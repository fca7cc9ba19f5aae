import Foundation
import RichPushServer
import RichPushTestSupport
import Testing

/// Anonymous clients cannot make the server buffer large bodies: admin routes are refused from
/// the headers alone, before a body byte is read, and open routes read at most their own bound.
@Suite("memory before authentication", .serialized)
struct PreAuthMemoryTests {
    @Test("400 anonymous POST /v1/pushes trickling a declared 1 MB body: each gets 401 at its headers and is closed; RSS stays flat")
    func anonymousPushBodies() async throws {
        // A header deadline far past the watch below: a loaded server that had not yet read some
        // connections' headers when the default 10 s ran out closed them without an answer (298
        // of 400 answered, under a second test process's load), which is right for the deadline
        // and not what this test is about.
        let server = try await ServerProcess(extraArguments: ["--header-timeout", "90"])
        let port = server.port
        let c = server.client()
        for i in 0..<20 { _ = try await c.post("/v1/receipts", form: "push_id=warm-\(i)") }
        let before = try #require(server.residentBytes)
        let sockets = RawSockets()
        let thread = DedicatedThread(name: "pre-auth")
        let kilobyte = "{\"tokens\":[" + String(repeating: "\"00\",", count: 200) + "\"00\"],"
        let opened = try await thread.run {
            let n = sockets.open(400, port: port, sources: RawSockets.loopbackSources(10, third: 5))
            sockets.sendAll("POST /v1/pushes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n" + kilobyte)
            return n
        }
        #expect(opened == 400)
        // The 401s come from the headers alone; a server that waited for the bodies would answer
        // none of them (the bodies never complete; the slow-client cut would close them without
        // an answer, after the header timeout's grace). So the answers may take as long as a
        // loaded machine needs: watched for up to 60 s.
        var peak = before
        var answers: [String] = []
        var closed = 0
        let end = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(250))
            peak = max(peak, server.residentBytes ?? 0)
            answers = try await thread.run { (0..<400).map { sockets.received(at: $0) } }
            closed = try await thread.run { sockets.closedCount() }
            if answers.allSatisfy({ $0.hasPrefix("HTTP/1.1 401") }), closed == 400 { break }
        }
        #expect(answers.filter { $0.hasPrefix("HTTP/1.1 401") }.count == 400)
        #expect(closed == 400)
        let growth = peak - before
        #expect(growth < 16 * 1_048_576, "RSS grew by \(growth / 1024) KiB (was \(before / 1024) KiB)")
        try await thread.run { sockets.closeAll() }
        #expect(await server.terminate() == 0)
    }

    @Test("400 anonymous receipts trickling 8 KB bodies: RSS stays bounded by the 8 KB bound; a declared 100 KB receipt is refused at once")
    func trickledReceipts() async throws {
        let server = try await ServerProcess()
        let port = server.port
        let c = server.client()
        for i in 0..<20 { _ = try await c.post("/v1/receipts", form: "push_id=warm-\(i)") }
        let before = try #require(server.residentBytes)
        let sockets = RawSockets()
        let thread = DedicatedThread(name: "trickle")
        let opened = try await thread.run {
            let n = sockets.open(400, port: port, sources: RawSockets.loopbackSources(10, third: 6))
            sockets.sendAll(
                "POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 8192\r\n\r\npush_id=t&x=")
            return n
        }
        #expect(opened == 400)
        var peak = before
        for _ in 0..<8 {
            try await thread.run { sockets.sendAll(String(repeating: "a", count: 1_000)) }
            try await Task.sleep(for: .milliseconds(250))
            peak = max(peak, server.residentBytes ?? 0)
        }
        // 400 × (8 KB body + 16 KB connection memory) is under 10 MB; the bound leaves room for
        // the allocator.
        let growth = peak - before
        #expect(growth < 24 * 1_048_576, "RSS grew by \(growth / 1024) KiB (was \(before / 1024) KiB)")
        #expect(try await thread.run { sockets.closedCount() } == 0)
        // Declared far over the bound: 413 from the headers, nothing read.
        let huge = try await c.raw(Data("POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\npush_id=1".utf8))
        #expect(huge.status == 413)
        #expect(huge.headers["connection"]?.lowercased() == "close")
        try await thread.run { sockets.closeAll() }
        #expect(try await c.request("GET", "/healthz").status == 200)
        #expect(await server.terminate() == 0)
    }
}
