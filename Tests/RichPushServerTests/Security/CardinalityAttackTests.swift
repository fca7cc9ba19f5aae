import Foundation
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// The attack of issue 22 item 2 over HTTP: anonymous clients post distinct 64-byte reason and
/// outcome codes to one push and to many pushes. Past the bounds (`CodeFolding`: 8 per push and
/// kind, 64 store-wide) they count as `other` in the JSON detail, the list and the dashboard, and
/// the views stay small by size: a `GET /v1/pushes?limit=100` page is at most 100 entries of at
/// most 9 unknown-or-other reasons and outcomes each, whatever was posted.
@Suite("distinct reason codes")
struct CardinalityAttackTests {
    /// A 64-byte code (the longest accepted) numbered `n`.
    static func code(_ prefix: String, _ n: Int) -> String {
        let number = String(n)
        return prefix + String(repeating: "x", count: 64 - prefix.count - number.count) + number
    }

    /// Posts `forms` as receipts, 32 at a time, expecting 202 for each.
    static func post(_ client: InProcessServer.Client, _ forms: [String]) async throws {
        var rest = forms[...]
        while !rest.isEmpty {
            let chunk = rest.prefix(32)
            rest = rest.dropFirst(32)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for form in chunk { group.addTask { try await client.post("/v1/receipts", form: form).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 202 })
        }
    }

    @Test("1,000 distinct reasons on one push and 3,000 over 100 pushes are folded; list and detail stay small")
    func distinctReasons() async throws {
        let server = try InProcessServer()
        let client = server.client()
        // One push: 1,000 distinct reasons and outcomes.
        try await Self.post(client, (0..<1_000).map { "push_id=one&receipt_id=r\($0)&outcome=\(Self.code("o", $0))&reason=\(Self.code("r", $0))" })
        let one = try await server.push("one")
        let reasons = try #require(one["reasons"] as? [String: Int])
        let outcomes = try #require(one["outcomes"] as? [String: Int])
        #expect(reasons.count == 9)
        #expect(reasons["other"] == 992)
        #expect(outcomes.count == 9)
        #expect(outcomes["other"] == 992)
        #expect(one["delivered"] as? Int == 1_000)
        // 100 pushes with 128-byte ids: 30 new reasons each.
        let pushIDs = (0..<100).map { String(repeating: "p", count: 124) + String(format: "%04d", $0) }
        try await Self.post(
            client, pushIDs.enumerated().flatMap { p, id in (0..<30).map { "push_id=\(id)&receipt_id=r\($0)&reason=\(Self.code("m\(p)_", $0))" } })
        let page = try await client.request("GET", "/v1/pushes?limit=100", headers: server.admin)
        #expect(page.status == 200)
        let listed = try #require(try page.json()["pushes"] as? [[String: Any]])
        #expect(listed.count == 100)
        for push in listed {
            let pushReasons = try #require(push["reasons"] as? [String: Int])
            #expect(pushReasons.count <= 9)
            #expect(pushReasons.values.reduce(0, +) == 30)
        }
        // 100 entries of ≤ 9 reasons of 64 bytes and a 128-byte id: well under 300 KB (the
        // unfolded page was 30 reasons × 100 pushes, 12.9 MB in the issue's run).
        #expect(page.body.count < 300_000, "\(page.body.count) bytes")
        // Store-wide: 64 unknown reasons in all (8 of push one, 56 of the others), the rest other.
        let folded = listed.compactMap { ($0["reasons"] as? [String: Int])?["other"] }.reduce(0, +)
        #expect(folded == 3_000 - 56)
        let dashboard = try await client.request("GET", "/", headers: server.admin)
        #expect(dashboard.status == 200)
        #expect(dashboard.text.contains(">other<"))
        #expect(dashboard.body.count < 200_000, "\(dashboard.body.count) bytes")
        let metrics = try await client.request("GET", "/metrics")
        #expect(metrics.text.contains("richpush_receipt_codes_folded_total \(992 * 2 + 3_000 - 56)"))
    }
}
