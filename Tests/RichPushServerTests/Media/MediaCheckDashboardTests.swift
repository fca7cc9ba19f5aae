import Foundation
import RichPushCore
import RichPushTestSupport
import Testing

@testable import RichPushServer

/// What the send-time media check did, on the dashboard (prevented at send, by reason, next to
/// what still failed on devices) and on a push's page (per media URL), from the store's
/// `push_media` rows and the receipts (issue 19, items 4 and 5).
@Suite("dashboard: media prevented at send")
struct MediaCheckDashboardTests {
    static let day = 1_764_547_200_000  // 2025-12-01 00:00 UTC

    static func record(_ push: String, _ url: String, reason: String?, action: String, at ms: Int = day + 3_600_000) -> PushMediaRecord {
        let optimized = action == "optimized"
        return PushMediaRecord(
            pushID: push, originalURL: url, reason: reason, action: action,
            originalType: url.hasSuffix(".webp") ? "org.webmproject.webp" : "public.jpeg", originalBytes: url.hasSuffix(".webp") ? 41_746 : 12_400_000,
            sha256: optimized ? String(repeating: "a", count: 64) : nil, optimizedType: optimized ? "image/jpeg" : nil,
            optimizedBytes: optimized ? 76_508 : nil, sentURL: optimized ? "https://push.example.com/m/\(String(repeating: "a", count: 64)).jpg" : nil,
            recordedAtMs: ms)
    }

    /// A server whose store holds: 6 checked URLs (4 caught: 2 WebP optimised, 1 HEIC sent as
    /// text, 1 404 in a refused push; 1 large JPEG lightened; 1 fine), one more outside the
    /// date range, and 3 delivered receipts of which 2 name a reason (timeout, too_large).
    static func server() async throws -> InProcessServer {
        let server = try InProcessServer()
        let store = server.server.store
        for r in [
            record("sale-1", "https://img.example.com/a.webp", reason: "unsupported_format", action: "optimized"),
            record("sale-2", "https://img.example.com/b.webp", reason: "unsupported_format", action: "optimized"),
            record("sale-2", "https://img.example.com/c.heic", reason: "unsupported_format", action: "sent_text"),
            record("sale-3", "https://img.example.com/gone.jpg", reason: "http_status", action: "refused"),
            record("sale-4", "https://img.example.com/large.jpg", reason: nil, action: "optimized"),
            record("sale-4", "https://img.example.com/fine.jpg", reason: nil, action: "checked"),
            record("old-1", "https://img.example.com/old.webp", reason: "unsupported_format", action: "optimized", at: day - 5 * 86_400_000),
        ] {
            try store.recordMedia(r)
        }
        let c = server.client()
        let sends = #"{"batch_id": "b-1", "source": "backend", "sent": 3, "accepted": 3}"#
        #expect(try await c.postJSON("/v1/pushes/sale-1/sends", sends, headers: server.admin).status == 200)
        for (i, extra) in ["&outcome=media_attached", "&outcome=text_only&reason=timeout", "&outcome=text_only&reason=too_large"].enumerated() {
            #expect(try await c.post("/v1/receipts", form: "push_id=sale-1&receipt_id=d\(i)\(extra)").status == 202)
        }
        return server
    }

    @Test("the dashboard counts what the check caught, by reason and action, next to the receipts' reasons")
    func dashboardFigures() async throws {
        let server = try await Self.server()
        let r = try await server.client().request("GET", "/", headers: server.admin)
        #expect(r.status == 200)
        let page = r.text
        #expect(page.contains("Media failures: prevented at send, and on devices"))
        #expect(
            page.contains(
                "7 media URLs checked at send; 5 would have failed: 3 optimised to the edge&#39;s JPEG, 1 sent as text, 1 in refused pushes (422); 1 more lightened (over 300 KB or 2048 px)"
            ), "\(page)")
        #expect(page.contains("Prevented at send · 5 media URLs the extension would not have attached"))
        #expect(page.contains("<title>unsupported_format: 4</title>"))
        #expect(page.contains("<title>http_status: 1</title>"))
        #expect(page.contains("Still failed on devices · 2 delivered receipts with a reason"))
        #expect(page.contains("<title>timeout: 1</title>") && page.contains("<title>too_large: 1</title>"))

        // A date range counts the checks recorded in it only (the old WebP is out).
        let ranged = try await server.client().request("GET", "/?from=2025-12-01&to=2025-12-01", headers: server.admin)
        #expect(ranged.status == 200)
        #expect(ranged.text.contains("6 media URLs checked at send; 4 would have failed: 2 optimised"), "\(ranged.text)")
        #expect(ranged.text.contains("<title>unsupported_format: 3</title>"))
        // Only the actions that happened are named; nothing checked says so.
        let optimizedOnly = MediaCheckTotals(rows: [.init(reason: "unsupported_format", action: "optimized", count: 2)])
        #expect(
            MediaCheckPanel.summary(optimizedOnly, caught: 2) == "2 media URLs checked at send; 2 would have failed: 2 optimised to the edge's JPEG")
        #expect(MediaCheckPanel.summary(MediaCheckTotals(), caught: 0).hasSuffix("nothing checked in this range yet"))
    }

    @Test("a push's page shows per media URL what the probe found and what was sent; a refused push has a page")
    func pushPages() async throws {
        let server = try await Self.server()
        let c = server.client()
        let sale2 = try await c.request("GET", "/pushes/sale-2", headers: server.admin)
        #expect(sale2.status == 200)
        #expect(sale2.text.contains("Media checked at send"))
        #expect(
            sale2.text.contains(
                "https://img.example.com/b.webp</td><td><span class=\"mono\">unsupported_format</span></td><td class=\"num\">WebP · 41.7 KB</td><td>optimised → JPEG · 76.5 KB"
            ), "\(sale2.text)")
        #expect(sale2.text.contains("https://img.example.com/c.heic</td><td><span class=\"mono\">unsupported_format</span></td>"))
        #expect(sale2.text.contains("removed: the push went out as text"))
        let sale4 = try await c.request("GET", "/pushes/sale-4", headers: server.admin)
        #expect(sale4.text.contains("fine.jpg</td><td>attachable</td><td class=\"num\">JPEG · 12.4 MB</td><td>sent as it is</td>"), "\(sale4.text)")
        // Refused: no sends, no receipts, still a page saying why.
        let refused = try await c.request("GET", "/pushes/sale-3", headers: server.admin)
        #expect(refused.status == 200)
        #expect(refused.text.contains("<span class=\"mono\">http_status</span>"))
        #expect(refused.text.contains("push refused (422 media_refused): nothing sent"))
        // A push without checked media has no such section; an unknown push is still 404.
        #expect(try await c.request("GET", "/pushes/nothing-here", headers: server.admin).status == 404)
    }
}
