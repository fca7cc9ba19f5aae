import Foundation
import RichPushServer
import RichPushTestSupport
import Testing

/// Integers a peer sends — APNs' `timestamp`, `Content-Length`, JSON numbers in receipts and push
/// requests — are read without trapping: out of range is a clear 4xx or "no value", never a crash.
@Suite("integers from peers", .serialized)
struct PeerIntegerTests {
    @Test("APNs answers 410 with timestamp 1e19: POST /v1/pushes records the token Unregistered (inactive, no date) and serve keeps running")
    func apnsTimestampOutOfRange() async throws {
        let huge = MockAPNsProcess.token("e19")
        let wide = MockAPNsProcess.token("e20")
        let mock = try await MockAPNsProcess(script: [
            huge: [["status": 410, "reason": "Unregistered", "timestamp": 1e19]],
            wide: [["status": 410, "reason": "Unregistered", "timestamp": UInt64(10_000_000_000_000_000_000)]],
        ])
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let c = server.client()
        let r = try await c.postJSON("/v1/pushes", #"{"push_id":"ts-1e19","tokens":["\#(huge)","\#(wide)"],"title":"t","body":"b"}"#, headers: server.admin)
        #expect(r.status == 200, "\(r.text)")
        let results = try #require(try r.json()["results"] as? [[String: Any]])
        #expect(results.count == 2)
        #expect(results.allSatisfy { $0["status"] as? Int == 410 && $0["outcome"] as? String == "token_inactive" && $0["reason"] as? String == "Unregistered" })
        #expect(try await c.request("GET", "/healthz").status == 200)
        #expect(try await server.push("ts-1e19")["sent"] as? Int == 2)
        #expect(await server.terminate() == 0)
        let store = try SQLiteStore(path: server.database.path)
        for token in [huge, wide] {
            let state = try #require(try store.deviceTokenState(token))
            #expect(state.state == .inactive)
            #expect(state.reason == "Unregistered")
            #expect(state.sinceMs == nil)
        }
        try store.close()
    }

    @Test("Content-Length past 2^64, negative, or not a number: 413 / 400, the server keeps running")
    func contentLengthOutOfRange() async throws {
        let server = try await ServerProcess()
        let c = server.client()
        for (length, status) in [
            ("18446744073709551616", 413), ("99999999999999999999999999", 413), ("18446744073709551615", 413),
            ("-1", 400), ("1e3", 400), ("0x10", 400),
        ] {
            let r = try await c.raw(Data("POST /v1/receipts HTTP/1.1\r\nHost: x\r\nContent-Length: \(length)\r\n\r\npush_id=1".utf8))
            #expect(r.status == status, "Content-Length: \(length)")
        }
        #expect(try await c.request("GET", "/healthz").status == 200)
        #expect(await server.terminate() == 0)
    }

    @Test("JSON numbers out of range in receipts and push requests are 400 naming the field")
    func jsonNumbers() async throws {
        let mock = try await MockAPNsProcess()
        defer { mock.stop() }
        let server = try await ServerProcess(extraArguments: mock.serveArguments())
        let c = server.client()
        for value in ["1e19", "18446744073709551615", "-9223372036854775809", "1e400", "9223372036854775807", "-1", "0.5"] {
            for field in ["elapsed_ms", "media_bytes"] {
                let r = try await c.postJSON("/v1/receipts", #"{"push_id":"n","\#(field)":\#(value)}"#)
                #expect(r.status == 400, "\(field) \(value): \(r.text)")
                // Numbers are parsed losslessly (1e400 too), so even that one names its field.
                #expect((try? r.json()["error"] as? [String: String])?["field"] == field, "\(field) \(value): \(r.text)")
            }
        }
        let token = MockAPNsProcess.token("ab")
        for (field, value) in [
            ("expiration", "1e19"), ("expiration", "9223372036854775807"), ("expiration", "18446744073709551615"),
            ("expiration", "4102444801"), ("expiration", "-1"), ("priority", "1e400"), ("priority", "10000000000000000000"),
        ] {
            let r = try await c.postJSON("/v1/pushes", #"{"tokens":["\#(token)"],"title":"t","\#(field)":\#(value)}"#, headers: server.admin)
            #expect(r.status == 400, "\(field) \(value): \(r.text)")
            #expect((try? r.json()["error"] as? [String: Any])?["field"] as? String == field, "\(field) \(value): \(r.text)")
        }
        // In range still works, and nothing above reached APNs.
        #expect(try await mock.stats()["requests"]?.intValue == 0)
        let ok = try await c.postJSON("/v1/pushes", #"{"tokens":["\#(token)"],"title":"t","expiration":4102444800}"#, headers: server.admin)
        #expect(ok.status == 200, "\(ok.text)")
        #expect(try await c.request("GET", "/healthz").status == 200)
        #expect(await server.terminate() == 0)
    }
}
