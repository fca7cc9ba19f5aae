import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// Push ids are shown on the dashboard: a receipt cannot bring control, bidi-override or invisible
/// characters into them, and ids stored before the rule are shown neutralised.
@Suite("printable push ids")
struct PushIDRuleTests {
    @Test(
        "receipts with a bidi override, a control character, a C1 control, an invisible or a line separator in push_id or receipt_id get 400 naming the character and the rule"
    )
    func refused() async throws {
        let server = try InProcessServer()
        let c = server.client()
        let cases: [(String, String, String)] = [
            ("push_id", "invoice\u{202E}fdp.exe", "U+202E RIGHT-TO-LEFT OVERRIDE"),
            ("push_id", "a\u{2066}b", "U+2066 LEFT-TO-RIGHT ISOLATE"),
            ("push_id", "bell\u{07}", "U+0007"),
            ("push_id", "next\u{85}line", "U+0085"),
            ("push_id", "zero\u{200B}width", "U+200B ZERO WIDTH SPACE"),
            ("push_id", "line\u{2028}sep", "U+2028 LINE SEPARATOR"),
            ("push_id", "bom\u{FEFF}", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
            ("receipt_id", "dev\u{200F}1", "U+200F RIGHT-TO-LEFT MARK"),
            // A joiner outside an emoji sequence is as invisible as U+200B.
            ("push_id", "sale\u{200D}1", "U+200D ZERO WIDTH JOINER"),
            ("push_id", "🎉\u{200D}", "U+200D ZERO WIDTH JOINER"),
            ("push_id", "1\u{200D}2", "U+200D ZERO WIDTH JOINER"),
        ]
        for (field, value, named) in cases {
            var object = ["push_id": "ok"]
            object[field] = value
            let body = try JSONSerialization.data(withJSONObject: object)
            let r = try await c.request("POST", "/v1/receipts", headers: ["Content-Type": "application/json"], body: body)
            #expect(r.status == 400, "\(named)")
            let error = try #require(try r.json()["error"] as? [String: String])
            #expect(error["code"] == "not_printable")
            #expect(error["field"] == field)
            #expect(error["message"]?.contains(named) == true, "\(error["message"] ?? "")")
            #expect(error["message"]?.contains("printable text") == true)
            // The form encoding is held to the same rule.
            let form = "push_id=\(field == "push_id" ? Self.percent(value) : "ok")&\(field)=\(Self.percent(value))"
            #expect(try await c.post("/v1/receipts", form: form).status == 400)
        }
        // Every script, emoji and spaces are fine; 128 bytes is the most.
        // Emoji ZWJ sequences (Unicode TS #51) draw one emoji: 👩‍💻, 🏳️‍🌈 (with U+FE0F), 👩🏽‍🚀 (a skin tone).
        let sequences = ["👩\u{200D}💻 devs", "🏳\u{FE0F}\u{200D}🌈", "👩🏽\u{200D}🚀-launch"]
        for ok in ["2018001", "キャンペーン 冬", "حملة-1", "🎉-launch", "summer sale", String(repeating: "x", count: 128)] + sequences {
            #expect(try await c.post("/v1/receipts", form: "push_id=\(Self.percent(ok))").status == 202, "\(ok)")
        }
        #expect(try await c.post("/v1/receipts", form: "push_id=\(String(repeating: "x", count: 129))").status == 400)
        let list = try await c.request("GET", "/v1/pushes?limit=1000", headers: server.admin)
        let ids = try #require(try list.json()["pushes"] as? [[String: Any]]).compactMap { $0["push_id"] as? String }
        #expect(!ids.contains { IdentifierRule.firstViolation(in: $0) != nil })
        #expect(Set(sequences).isSubset(of: ids), "\(ids)")
        try await server.shutdown()
    }

    @Test("a push id stored before the rule is shown with U+FFFD in place of the override, in the table and the funnel")
    func legacyIDsNeutralised() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("legacy.sqlite").path)
        let spoof = "invoice\u{202E}fdp.exe"
        _ = try store.insert([StoredReceipt(receipt: RichPushReceipt(pushID: spoof), userAgent: nil, receivedAtMs: 1_700_000_000_000)])
        let html = DashboardPage.render(try store.dashboard(maximumBuckets: 60), generatedAtMs: 1_700_000_001_000)
        #expect(!html.unicodeScalars.contains("\u{202E}"))
        #expect(html.contains("invoice\u{FFFD}fdp.exe"))
        let detail = try #require(try store.pushDetail(spoof))
        #expect(!PushDetailPage.render(detail, generatedAtMs: 1_700_000_001_000).unicodeScalars.contains("\u{202E}"))
        try store.close()
    }

    @Test("POST /v1/pushes refuses an unprintable push_id before sending")
    func pushRequestRefused() throws {
        let body = Data(#"{"push_id":"a\u202eb","tokens":["aa"],"title":"t"}"#.utf8)
        let error = try #require(throws: HTTPResponseError.self) { try PushSendRequest(body: body, defaultTopic: "com.example.app") }
        #expect(error.code == "not_printable")
        #expect(error.field == "push_id")
        #expect(error.message.contains("U+202E"))
    }

    @Test("POST /v1/pushes/{push_id}/sends holds the path's push_id and the batch_id to the same rule")
    func recordedSendsRefused() async throws {
        let server = try InProcessServer()
        let c = server.client()
        let body = #"{"batch_id":"b1","sent":2,"accepted":2}"#
        let spoofed = try await c.postJSON("/v1/pushes/\(Self.percent("invoice\u{202E}fdp.exe"))/sends", body, headers: server.admin)
        #expect(spoofed.status == 400)
        let error = try #require(try spoofed.json()["error"] as? [String: String])
        #expect(error["code"] == "not_printable")
        #expect(error["message"]?.contains("U+202E RIGHT-TO-LEFT OVERRIDE") == true, "\(error["message"] ?? "")")
        let batch = try await c.postJSON("/v1/pushes/sale/sends", #"{"batch_id":"b\u200b1","sent":2,"accepted":2}"#, headers: server.admin)
        #expect(batch.status == 400)
        #expect((try batch.json()["error"] as? [String: String])?["field"] == "batch_id")
        #expect(try await c.postJSON("/v1/pushes/sale/sends", body, headers: server.admin).status == 200)
        try await server.shutdown()
    }

    @Test("a registration's user_id is held to the same rule (it is shown on the dashboard); one stored before it is found, erased and shown neutralised")
    func userIDs() async throws {
        let server = try InProcessServer()
        let c = server.client()
        func register(_ token: String, _ userID: String) async throws -> HTTPTestClient.Response {
            let body = try JSONSerialization.data(withJSONObject: ["token": token, "platform": "ios", "user_id": userID])
            return try await c.request("POST", "/v1/devices", headers: server.admin.merging(["Content-Type": "application/json"]) { a, _ in a }, body: body)
        }
        let spoofed = try await register(String(repeating: "a", count: 64), "admin\u{202E}nimda")
        #expect(spoofed.status == 400)
        let error = try #require(try spoofed.json()["error"] as? [String: String])
        #expect(error["code"] == "not_printable")
        #expect(error["field"] == "user_id")
        #expect(error["message"]?.contains("U+202E RIGHT-TO-LEFT OVERRIDE") == true, "\(error["message"] ?? "")")
        #expect(try await register(String(repeating: "b", count: 64), "alice\u{200B}").status == 400)
        #expect(try await register(String(repeating: "c", count: 64), "dev-👩\u{200D}💻").status == 201)
        #expect(try await register(String(repeating: "d", count: 64), "ok@example.com").status == 201)
        try await server.shutdown()

        // Stored before the rule: the panel shows U+FFFD instead of the override.
        let page = RecipientPage(
            recipients: [Recipient(deviceID: "d-1", userID: "admin\u{202E}nimda", platform: "ios", atMs: 0, outcome: nil, cursor: "c")], next: nil)
        let html = RecipientsPanel.render(pushID: "p", state: .delivered, page: page, base: "/pushes/p")
        #expect(!html.unicodeScalars.contains("\u{202E}"))
        #expect(html.contains("admin\u{FFFD}nimda"))
        // And it can still be looked up (and so erased): the lookups keep the old rule.
        #expect(DeviceRegistrationRequest.isValidUserID("admin\u{202E}nimda"))
    }

    static func percent(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s
    }
}
