import Foundation
import RichPushTestSupport
import Testing

/// The dashboard reflows on a phone (390 px) and keeps its desktop layout at 1280 px, measured in
/// headless Chromium (Tests/Support/dashboard_layout.py).
@Suite("dashboard layout", .serialized)
struct DashboardLayoutTests {
    @Test(
        "at 390 px nothing runs off the side: 2 card columns, panels stacked, the table and wide charts scroll in their own box at a readable size; 1280 px keeps 6 columns side by side"
    )
    func reflows() async throws {
        let server = try await ServerProcess()
        let c = server.client()
        let sends = #"{"batch_id": "b-1", "source": "onesignal", "sent": 1200, "accepted": 1180, "title": "Spring sale"}"#
        #expect(try await c.postJSON("/v1/pushes/campaign-2026-spring-sale/sends", sends, headers: server.admin).status == 200)
        for i in 0..<30 {
            let reason = i % 3 == 0 ? "&outcome=text_only&reason=timeout" : "&outcome=media_attached"
            #expect(
                try await c.post("/v1/receipts", form: "push_id=campaign-2026-spring-sale&receipt_id=d\(i)&elapsed_ms=\(200 + 37 * i)\(reason)").status == 202)
            #expect(try await c.post("/v1/receipts", form: "push_id=campaign-2026-11-\(i % 7)&receipt_id=d\(i)").status == 202)
        }
        let run = try await ChildProcess(
            "python3",
            [
                Fixtures.supportDirectory.appendingPathComponent("dashboard_layout.py").path,
                "--server", server.origin, "--token", ServerProcess.token, "--push", "campaign-2026-spring-sale",
            ]
        ).run(timeout: 120)
        try #require(run.status == 0, "dashboard_layout.py failed: \(run.stderr)")
        let line = try #require(run.stdout.split(separator: "\n").last)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: [String: [String: Any]]])
        let phone = try #require(result["390"]), desktop = try #require(result["1280"])

        for page in ["dashboard", "push"] {
            #expect(phone[page]?["viewport"] as? Int == 390)
            #expect(phone[page]?["scroll_width"] as? Int == 390, "\(page) at 390 px: \(phone[page] ?? [:])")
            #expect(phone[page]?["card_columns"] as? Int == 2, "\(page): \(phone[page] ?? [:])")
            #expect((phone[page]?["grid_columns"] as? [Int])?.allSatisfy { $0 == 1 } == true, "\(page): \(phone[page] ?? [:])")
            #expect(desktop[page]?["scroll_width"] as? Int == 1280, "\(page) at 1280 px: \(desktop[page] ?? [:])")
            #expect(desktop[page]?["card_columns"] as? Int == 6, "\(page): \(desktop[page] ?? [:])")
            #expect((desktop[page]?["grid_columns"] as? [Int])?.allSatisfy { $0 == 2 } == true, "\(page): \(desktop[page] ?? [:])")
            // The wide charts (860 units) keep at least 640 px, so their 11-unit labels stay ≥ 8 px tall.
            let wide = phone[page]?["wide_chart_widths"] as? [Double] ?? []
            #expect(!wide.isEmpty && wide.allSatisfy { $0 >= 640 }, "\(page): \(wide)")
            #expect((phone[page]?["smallest_chart_text_px"] as? Double ?? 0) >= 8, "\(page): \(phone[page] ?? [:])")
        }
        // The pushes table is wider than a phone: it scrolls inside its box, not the page.
        #expect(phone["dashboard"]?["table_scrolls_in_its_box"] as? Bool == true)
        #expect(desktop["dashboard"]?["table_scrolls_in_its_box"] as? Bool == false)
        #expect(await server.terminate() == 0)
    }
}
