import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Bodies that are not a form or JSON receipt are told so, not "push_id is required".
@Suite("POST /v1/receipts content types")
struct ReceiptContentTypeTests {
    @Test("JSON sent as a form, multipart and XML get 415 naming the type and the accepted ones")
    func unsupportedTypes() async throws {
        let server = try InProcessServer()
        let c = server.client()
        let boundary = "----richpush"
        let multipart = "--\(boundary)\r\nContent-Disposition: form-data; name=\"push_id\"\r\n\r\n2018001\r\n--\(boundary)--\r\n"
        let cases: [(contentType: String, body: String, named: String)] = [
            // What `curl -d '{"push_id":"2018001"}' URL` sends.
            ("application/x-www-form-urlencoded", #"{"push_id":"2018001"}"#, "application/x-www-form-urlencoded"),
            ("multipart/form-data; boundary=\(boundary)", multipart, "multipart/form-data"),
            ("application/xml", "<receipt><push_id>2018001</push_id></receipt>", "application/xml"),
            ("text/xml; charset=utf-8", "<receipt><push_id>2018001</push_id></receipt>", "text/xml"),
        ]
        for (contentType, body, named) in cases {
            let r = try await c.request("POST", "/v1/receipts", headers: ["Content-Type": contentType], body: Data(body.utf8))
            #expect(r.status == 415, "\(contentType)")
            let error = try #require(try r.json()["error"] as? [String: String])
            #expect(error["code"] == "unsupported_media_type")
            #expect(error["field"] == "Content-Type")
            let message = error["message"] ?? ""
            #expect(message.contains(named), "\(message)")
            #expect(message.contains("application/x-www-form-urlencoded") && message.contains("application/json"), "\(message)")
            #expect(!message.contains("push_id is required"))
        }
        let json = try #require(
            try await c.request("POST", "/v1/receipts", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(#"{"push_id":"x"}"#.utf8))
                .json()["error"] as? [String: String])
        #expect(json["message"]?.contains("looks like JSON") == true)
        // Nothing of the above was stored; real form and JSON receipts still are.
        #expect(try await c.post("/v1/receipts", form: "push_id=2018001").status == 202)
        #expect(try await c.postJSON("/v1/receipts", #"{"push_id":"2018001","receipt_id":"j"}"#).status == 202)
        #expect(
            try await c.request(
                "POST", "/v1/receipts", headers: ["Content-Type": "text/plain;charset=UTF-8"], body: Data(#"{"push_id":"2018001","receipt_id":"beacon"}"#.utf8)
            ).status == 202)
        #expect(try await server.push("2018001")["delivered"] as? Int == 3)
        try await server.shutdown()
    }

    @Test("limit messages name the limit, not internal type names")
    func noInternalNames() {
        for body in [
            "push_id=\(String(repeating: "x", count: RichPushReceipt.Limits.identifierBytes + 1))", "push_id=1&elapsed_ms=99999999",
            "push_id=1&media_type=\(String(repeating: "a", count: 300))",
        ] {
            do {
                _ = try ReceiptDecoder.decode(body: Data(body.utf8), contentType: "application/x-www-form-urlencoded")
                Issue.record("accepted \(body.prefix(40))")
            } catch let error as HTTPResponseError {
                #expect(error.status == 400)
                #expect(!error.message.contains("RichPushReceipt.Limits"), "\(error.message)")
                #expect(error.message.contains("at most") || error.message.contains("from 0 to"), "\(error.message)")
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test("a JSON body nested too deeply is told so, for receipts and for POST /v1/pushes")
    func nestedTooDeeply() throws {
        let deep = Data(("{\"push_id\":\"1\",\"x\":" + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}").utf8)
        do {
            _ = try ReceiptDecoder.decode(body: deep, contentType: "application/json")
            Issue.record("accepted a 601-level body")
        } catch let error as HTTPResponseError {
            #expect(error.message.contains("nested 601 levels deep; at most 512"), "\(error.message)")
        }
        let push = Data(("{\"tokens\":[\"ab\"],\"payload\":" + String(repeating: "{\"a\":", count: 700) + "1" + String(repeating: "}", count: 700) + "}").utf8)
        let error = try #require(throws: HTTPResponseError.self) { try PushSendRequest(body: push, defaultTopic: "com.example.app") }
        #expect(error.status == 400)
        #expect(error.message.contains("nested 701 levels deep; at most 512"), "\(error.message)")
        #expect(!error.message.contains("must be a JSON object"))
        // Brackets inside strings do not count; an ordinary non-object still gets the old message.
        #expect(JSONNesting.depth(of: Data(#"{"a":"[[[[{{{{\"]]"}"#.utf8)) == 1)
        let array = try #require(throws: HTTPResponseError.self) { try PushSendRequest(body: Data("[1]".utf8), defaultTopic: "t") }
        #expect(array.message.contains("must be a JSON object"))
    }
}
