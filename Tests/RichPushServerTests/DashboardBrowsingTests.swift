import Foundation
import RichPushTestSupport
import Testing

/// The dashboard as a user with many pushes uses it, through the server's admission and endpoints
/// (in process): pages, search by push id, a date range, one push's page; and `GET /v1/pushes`
/// with the same parameters.
@Suite("dashboard browsing")
struct DashboardBrowsingTests {
    /// The `href` of the link with this text, HTML-unescaped.
    private func link(_ html: String, _ text: String) -> String? {
        guard let end = html.range(of: "\">\(text)</a>") else { return nil }
        guard let start = html[..<end.lowerBound].range(of: "href=\"", options: .backwards) else { return nil }
        return String(html[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The push ids in the table, in order.
    private func rows(_ html: String) -> [String] {
        html.components(separatedBy: "<a href=\"/pushes/").dropFirst().compactMap { part in
            part.split(separator: ">", maxSplits: 1).last.map { String($0.prefix { $0 != "<" }) }
        }
    }

    @Test("60 pushes: 25 a page with Older/Newer links, search by prefix, a date range, a per-push page; JSON pages follow next")
    func browse() async throws {
        let server = try InProcessServer()
        let c = server.client()
        for i in 0..<60 {
            #expect(
                try await c.post(
                    "/v1/receipts", form: "push_id=campaign-\(String(format: "%02d", i))&receipt_id=r&outcome=media_attached&elapsed_ms=\(100 + i)"
                ).status == 202)
        }
        #expect(try await c.post("/v1/receipts", form: "push_id=other-1").status == 202)
        let first = try await c.request("GET", "/", headers: server.admin)
        #expect(first.status == 200)
        #expect(rows(first.text).count == 25)
        #expect(rows(first.text).first == "other-1")
        #expect(first.text.contains("<span>61 pushes</span>"))
        // The pushes table: as many header cells as cells in each row, the empty row spans them all.
        let table = try #require(first.text.components(separatedBy: "<table><thead><tr><th>push_id</th>").last)
        let header = try #require(table.components(separatedBy: "</thead>").first)
        let firstRow = try #require(table.components(separatedBy: "<tbody>").dropFirst().first?.components(separatedBy: "</tr>").first)
        let columns = header.components(separatedBy: "<th").count
        #expect(columns == 13)
        #expect(firstRow.components(separatedBy: "<td").count - 1 == columns)
        #expect(first.text.contains("<span class=\"off\">← Newer</span>"))
        let older = try #require(link(first.text, "Older →"))
        let second = try await c.request("GET", older, headers: server.admin)
        #expect(rows(second.text).count == 25)
        #expect(Set(rows(second.text)).isDisjoint(with: rows(first.text)))
        let third = try await c.request("GET", try #require(link(second.text, "Older →")), headers: server.admin)
        #expect(rows(third.text).count == 11)
        #expect(third.text.contains("<span class=\"off\">Older →</span>"))
        let back = try await c.request("GET", try #require(link(third.text, "← Newer")), headers: server.admin)
        #expect(rows(back.text) == rows(second.text))
        #expect(Set(rows(first.text) + rows(second.text) + rows(third.text)).count == 61)

        // Search: push ids starting with "campaign-1", in id order.
        let search = try await c.request("GET", "/?q=campaign-1", headers: server.admin)
        #expect(rows(search.text) == (10...19).map { "campaign-\($0)" })
        #expect(search.text.contains("value=\"campaign-1\""))
        #expect(search.text.contains("push ids starting with “campaign-1”"))
        let none = try await c.request("GET", "/?q=zzz", headers: server.admin)
        #expect(none.text.contains("No push matches."))
        #expect(none.text.contains("<td colspan=\"\(columns)\" class=\"empty\">"))

        // Date range: all of them started today (UTC); tomorrow has none.
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        let today = formatter.string(from: Date())
        let tomorrow = formatter.string(from: Date().addingTimeInterval(86_400))
        #expect(rows(try await c.request("GET", "/?from=\(today)&to=\(today)", headers: server.admin).text).count == 25)
        #expect(rows(try await c.request("GET", "/?from=\(tomorrow)", headers: server.admin).text).isEmpty)
        let bad = try await c.request("GET", "/?from=yesterday", headers: server.admin)
        #expect(bad.status == 400)  // the page, with the problem on it
        #expect(bad.text.contains("from must be a day like 2026-11-30"))

        // One push's page, linked from the table.
        let page = try await c.request("GET", "/pushes/campaign-07", headers: server.admin)
        #expect(page.status == 200)
        #expect(page.text.contains("push campaign-07"))
        #expect(page.text.contains("← All pushes"))
        #expect(page.text.contains("Device tokens"))
        #expect(try await c.request("GET", "/pushes/missing", headers: server.admin).status == 404)
        #expect(try await c.request("GET", "/pushes/campaign-07").status == 401)

        // JSON: the same pages through `next`.
        var seen: [String] = []
        var path = "/v1/pushes?limit=20"
        while true {
            let r = try await c.request("GET", path, headers: server.admin)
            #expect(r.status == 200)
            let json = try r.json()
            seen += try #require(json["pushes"] as? [[String: Any]]).compactMap { $0["push_id"] as? String }
            guard let next = json["next"] as? String else { break }
            path = "/v1/pushes?limit=20&after=\(next)"
        }
        #expect(seen.count == 61)
        #expect(Set(seen).count == 61)
        let prefixed = try await c.request("GET", "/v1/pushes?prefix=campaign-5", headers: server.admin)
        #expect(try #require(try prefixed.json()["pushes"] as? [[String: Any]]).count == 10)
        for query in [
            "limit=0", "limit=1001", "limit=-1", "limit=99999999999999999999", "after=nonsense", "from=2026-02-30", "from=2026-12-01&to=2026-11-01",
            "after=i00",
        ] {
            let r = try await c.request("GET", "/v1/pushes?\(query)", headers: server.admin)
            #expect(r.status == 400, "\(query)")
        }
        try await server.shutdown()
    }
}
