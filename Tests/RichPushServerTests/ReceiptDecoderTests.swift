import Foundation
import RichPushCore
import Testing

@testable import RichPushServer

@Suite("RichPushReceipt decoding")
struct ReceiptDecoderTests {
    private func form(_ s: String) throws -> RichPushReceipt {
        try ReceiptDecoder.decode(body: Data(s.utf8), contentType: "application/x-www-form-urlencoded")
    }

    private func json(_ s: String) throws -> RichPushReceipt {
        try ReceiptDecoder.decode(body: Data(s.utf8), contentType: "application/json; charset=utf-8")
    }

    private func field(of body: String, json isJSON: Bool = false) -> String? {
        do {
            _ = isJSON ? try json(body) : try form(body)
            return nil
        } catch let error as HTTPResponseError {
            return error.field
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("a bare push_id form, as article 000 sends, is a delivered receipt")
    func barePushID() throws {
        let r = try form("push_id=2018001")
        #expect(r == RichPushReceipt(pushID: "2018001"))
        #expect(try ReceiptDecoder.decode(body: Data("push_id=2018001".utf8), contentType: nil).pushID == "2018001")
    }

    @Test("every field of RichPushReceipt.formEncoded() reads back")
    func roundTrip() throws {
        let original = RichPushReceipt(
            pushID: "sale 2026/04", event: .opened, receiptID: "r-1", outcome: .textOnly, reason: .timeout, elapsedMs: 25_012,
            mediaBytes: 89_696, mediaType: "public.jpeg"
        )
        #expect(try form(original.formEncoded()) == original)
    }

    @Test("JSON receipts take numbers for push_id and integers for counts")
    func jsonReceipt() throws {
        let r = try json(
            #"{"push_id":2018001,"receipt_id":"a","outcome":"media_attached","elapsed_ms":420,"media_bytes":89696,"media_type":"public.jpeg","extra":true}"#)
        #expect(r.pushID == "2018001")
        #expect(r.outcome == .mediaAttached)
        #expect(r.elapsedMs == 420)
        #expect(r.mediaBytes == 89_696)
        #expect(r.reason == nil)
    }

    @Test("a body without a content type that starts with { is read as JSON")
    func sniffedJSON() throws {
        let r = try ReceiptDecoder.decode(body: Data(#" {"push_id":"x"}"#.utf8), contentType: nil)
        #expect(r.pushID == "x")
    }

    @Test("each bad field is named in the error")
    func badFieldsAreNamed() {
        let long = String(repeating: "a", count: RichPushReceipt.Limits.identifierBytes + 1)
        #expect(field(of: "") == "push_id")
        #expect(field(of: "event=delivered") == "push_id")
        #expect(field(of: "push_id=") == "push_id")
        #expect(field(of: "push_id=\(long)") == "push_id")
        #expect(field(of: "push_id=1&receipt_id=\(long)") == "receipt_id")
        #expect(field(of: "push_id=1&receipt_id=a%0Ab") == "receipt_id")
        #expect(field(of: "push_id=1&event=clicked") == "event")
        #expect(field(of: "push_id=1&outcome=Media+Attached") == "outcome")
        #expect(field(of: "push_id=1&reason=time-out") == "reason")
        #expect(field(of: "push_id=1&elapsed_ms=abc") == "elapsed_ms")
        #expect(field(of: "push_id=1&elapsed_ms=-5") == "elapsed_ms")
        #expect(field(of: "push_id=1&elapsed_ms=600001") == "elapsed_ms")
        #expect(field(of: "push_id=1&media_bytes=100000001") == "media_bytes")
        #expect(field(of: "push_id=1&media_bytes=1e5") == "media_bytes")
        #expect(field(of: "push_id=1&media_type=\(String(repeating: "x", count: 129))") == "media_type")
        #expect(field(of: "push_id=1&push_id=2") == "push_id")
        #expect(field(of: "push_id=%zz") == "push_id")
        #expect(field(of: #"{"push_id":"1","elapsed_ms":"12"}"#, json: true) == "elapsed_ms")
        #expect(field(of: #"{"push_id":"1","elapsed_ms":1.5}"#, json: true) == "elapsed_ms")
        #expect(field(of: #"{"push_id":["1"]}"#, json: true) == "push_id")
        #expect(field(of: #"[1,2]"#, json: true) == "body")
        #expect(field(of: #"{"push_id":"#, json: true) == "body")
    }

    @Test("a field given twice is 400 duplicate_field in JSON as in a form, never the last value counted")
    func duplicateFields() throws {
        func refusal(_ body: String, json isJSON: Bool) -> HTTPResponseError? {
            do {
                _ = isJSON ? try json(body) : try form(body)
                return nil
            } catch {
                return error as? HTTPResponseError
            }
        }
        for (body, isJSON, name) in [
            ("push_id=x&push_id=y", false, "push_id"),
            (#"{"push_id":"x","push_id":"y"}"#, true, "push_id"),
            (#"{"push_id":"x","push_id":"x"}"#, true, "push_id"),
            (#"{"push_id":"x","event":"opened","\u0065vent":"delivered"}"#, true, "event"),
            (#"{"push_id":"x","elapsed_ms":1,"elapsed_ms":2}"#, true, "elapsed_ms"),
        ] {
            let error = try #require(refusal(body, json: isJSON), "\(body)")
            #expect(error.code == "duplicate_field", "\(body)")
            #expect(error.field == name, "\(body)")
            #expect(error.status == 400)
            #expect(error.message == "\(name) was given more than once; send it once")
        }
        // The lenient parts of the JSON path stay: a byte order mark, unknown fields.
        #expect(try json("\u{FEFF}{\"push_id\":\"x\",\"extra\":{\"a\":1}}").pushID == "x")
    }

    @Test("push_id and receipt_id are strings, or JSON integers taken as their exact text; other fields are strings")
    func identifierTypes() throws {
        #expect(try json(#"{"push_id":2018001}"#).pushID == "2018001")
        #expect(try json(#"{"push_id":"2018001"}"#) == form("push_id=2018001"))
        #expect(try json(#"{"push_id":18446744073709551616,"receipt_id":7}"#).pushID == "18446744073709551616")
        #expect(try json(#"{"push_id":"a","receipt_id":7}"#).receiptID == "7")
        #expect(try json(#"{"push_id":-12}"#).pushID == "-12")
        for body in [#"{"push_id":1.0}"#, #"{"push_id":1e3}"#, #"{"push_id":true}"#, #"{"push_id":{"id":"1"}}"#] {
            #expect(field(of: body, json: true) == "push_id", "\(body)")
        }
        #expect(field(of: #"{"push_id":"a","receipt_id":0.5}"#, json: true) == "receipt_id")
        #expect(field(of: #"{"push_id":"a","media_type":5}"#, json: true) == "media_type")
        #expect(field(of: #"{"push_id":"a","outcome":5}"#, json: true) == "outcome")
        #expect(field(of: #"{"push_id":"a","event":1}"#, json: true) == "event")
    }

    @Test("a whole number out of range is out_of_range in a form as in JSON (-1, 600001, 20 digits); anything else invalid_field")
    func outOfRangeCodes() throws {
        func code(_ body: String, json: Bool = false) -> String? {
            do {
                _ = try json ? self.json(body) : form(body)
            } catch let error as HTTPResponseError {
                return (try? JSONSerialization.jsonObject(with: error.jsonBody) as? [String: [String: String]])?["error"]?["code"]
            } catch {}
            return nil
        }
        for value in ["-1", "600001", "99999999999999999999", "-99999999999999999999"] {
            #expect(code("push_id=1&elapsed_ms=\(value)") == "out_of_range", "\(value)")
        }
        #expect(code(#"{"push_id":"1","elapsed_ms":-1}"#, json: true) == "out_of_range")
        for value in ["abc", "-", "1.5", "1e3", "--1", "+1"] {
            #expect(code("push_id=1&elapsed_ms=\(value)") == "invalid_field", "\(value)")
        }
    }

    @Test("the 400 body is JSON with code, field and message")
    func errorBody() throws {
        do {
            _ = try form("push_id=1&elapsed_ms=abc")
            Issue.record("expected an error")
        } catch let error as HTTPResponseError {
            let object = try #require(try JSONSerialization.jsonObject(with: error.jsonBody) as? [String: [String: String]])
            #expect(object["error"]?["field"] == "elapsed_ms")
            #expect(object["error"]?["code"] == "invalid_field")
            #expect(object["error"]?["message"]?.contains("600000") == true)
        }
    }

    @Test("unknown outcome and reason codes from a newer client are kept")
    func unknownCodesKept() throws {
        let r = try form("push_id=1&outcome=media_attached_v2&reason=quota_exceeded")
        #expect(r.outcome?.rawValue == "media_attached_v2")
        #expect(r.reason?.rawValue == "quota_exceeded")
    }
}
