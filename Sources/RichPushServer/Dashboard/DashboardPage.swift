import Foundation

/// The server-rendered dashboard: key figures, receipts over time, funnel per push, reasons for
/// media failures, extension timing, and a table of pushes. Inline CSS and SVG only.
enum DashboardPage {
    /// Renders the page.
    ///
    /// - Parameters:
    ///   - s: the store snapshot.
    ///   - generatedAtMs: now, milliseconds since 1970.
    /// - Returns: the HTML document.
    static func render(_ s: DashboardSnapshot, generatedAtMs: Int) -> String {
        let openRate = s.delivered > 0 ? HTML.percent(Double(s.opened) / Double(s.delivered)) : "—"
        let mediaRate = s.withOutcome > 0 ? HTML.percent(Double(s.mediaAttached) / Double(s.withOutcome)) : "—"
        let displayRate = s.accepted > 0 ? HTML.percent(Double(s.deliveredOfSentPushes) / Double(s.accepted)) : "—"
        let timing = s.p50Ms.map { p50 in "\(HTML.duration(ms: p50)) / \(s.p95Ms.map { HTML.duration(ms: $0) } ?? "—")" } ?? "—"
        let failures = s.reasons.map(\.count).reduce(0, +)
        let bucket = s.bucketSeconds >= 3600 ? "\(s.bucketSeconds / 3600) h" : s.bucketSeconds >= 60 ? "\(s.bucketSeconds / 60) min" : "\(s.bucketSeconds) s"

        var cards = ""
        cards += card("Receipts", HTML.number(s.totalReceipts), "distinct, duplicates counted once")
        cards += card("Delivered", HTML.number(s.delivered), "shown by the service extension")
        cards += card("Opened", HTML.number(s.opened), "open rate \(openRate) of delivered")
        cards += card("Media attached", mediaRate, "\(HTML.number(s.mediaAttached)) of \(HTML.number(s.withOutcome)) with an outcome")
        cards += card("Extension time", timing, "p50 / p95 elapsed_ms")
        cards += card(
            "Display rate", displayRate,
            s.accepted > 0
                ? "\(HTML.number(s.deliveredOfSentPushes)) delivered / \(HTML.number(s.accepted)) accepted (pushes with sends: POST /v1/pushes or recorded)"
                : "needs sent counts: send with POST /v1/pushes, or record them with POST /v1/pushes/{id}/sends")

        var rows = ""
        for p in s.pushes {
            let attached = p.outcomes["media_attached"] ?? 0
            let reported = p.outcomes.values.reduce(0, +)
            let topReason = p.reasons.max { ($0.value, $1.key) < ($1.value, $0.key) }
            let shownID = HTML.truncated(p.pushID, 40)
            let fullID = shownID == p.pushID ? "" : " title=\"\(HTML.escape(p.pushID))\""
            rows += "<tr><td class=\"mono\"\(fullID)>\(HTML.escape(shownID))</td>"
            rows += "<td>\(sourceLabel(p.sources))</td>"
            rows += "<td class=\"num\">\(p.sent.map(HTML.number) ?? "—")</td>"
            rows += "<td class=\"num\">\(p.accepted.map(HTML.number) ?? "—")</td>"
            rows += "<td class=\"num\">\(p.skipped.map(HTML.number) ?? "—")</td>"
            rows += "<td class=\"num\">\(HTML.number(p.delivered))</td>"
            rows += "<td class=\"num\">\(HTML.number(p.opened))</td>"
            rows += "<td class=\"num\">\(p.displayRate.map(HTML.percent) ?? "—")</td>"
            rows += "<td class=\"num\">\(reported > 0 ? HTML.percent(Double(attached) / Double(reported)) : "—")</td>"
            rows += "<td class=\"mono\">\(topReason.map { "\(HTML.escape($0.key)) (\(HTML.number($0.value)))" } ?? "—")</td>"
            rows += "<td class=\"num\">\(HTML.bytes(p.mediaBytes))</td>"
            rows += "<td class=\"num\">\(p.elapsedMs.p50.map { HTML.duration(ms: $0) } ?? "—") / \(p.elapsedMs.p95.map { HTML.duration(ms: $0) } ?? "—")</td>"
            rows += "<td>\(HTML.escape(shortTime(p.lastSeen)))</td></tr>"
        }
        if rows.isEmpty {
            rows = "<tr><td colspan=\"13\" class=\"empty\">No receipts yet. Post one: <code>curl -d push_id=2018001 http://HOST/v1/receipts</code></td></tr>"
        }

        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>RichPush · statistics</title>
            <meta name="viewport" content="width=device-width,initial-scale=1">
            <style>
            *{box-sizing:border-box}
            body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;background:#f4f5f8;color:#1d2433}
            header{display:flex;align-items:center;justify-content:space-between;padding:16px 28px;background:#fff;border-bottom:1px solid #e3e7ef}
            header h1{font-size:18px;margin:0}header h1 span{color:#3b5bdb}
            header .meta{color:#7a8397;font-size:12.5px;display:flex;gap:14px;align-items:center}
            header button{border:1px solid #cfd5e2;background:#fff;border-radius:7px;padding:5px 12px;font:inherit;cursor:pointer}
            main{padding:20px 28px 36px;max-width:1400px;margin:0 auto}
            .cards{display:grid;grid-template-columns:repeat(6,1fr);gap:14px;margin-bottom:18px}
            .card{background:#fff;border-radius:12px;padding:14px 16px;box-shadow:0 1px 3px rgba(20,30,60,.06)}
            .card .k{color:#5b6478;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
            .card .v{font-size:24px;font-weight:650;margin:4px 0 2px;white-space:nowrap}
            .card .d{color:#7a8397;font-size:12px}
            .grid{display:grid;grid-template-columns:2fr 1fr;gap:16px;margin-bottom:16px}
            .panel{background:#fff;border-radius:12px;padding:16px 18px;box-shadow:0 1px 3px rgba(20,30,60,.06);min-width:0}
            .panel h2{font-size:14.5px;margin:0 0 2px}.panel .sub{color:#7a8397;font-size:12px;margin-bottom:10px}
            .legend{display:flex;gap:14px;font-size:12px;color:#5b6478;margin-bottom:6px}
            .legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;vertical-align:-1px}
            table{width:100%;border-collapse:collapse;font-size:13px}
            th{text-align:left;color:#5b6478;font-weight:600;font-size:12px;padding:8px 10px;border-bottom:1px solid #e3e7ef}
            td{padding:8px 10px;border-bottom:1px solid #f0f2f6}
            th.num,td.num{text-align:right;font-variant-numeric:tabular-nums}
            .mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
            .empty{color:#7a8397;text-align:center;padding:24px}
            .src{display:inline-block;font-size:11.5px;padding:1px 7px;border-radius:9px;background:#e7ecfb;color:#2f4ab8;white-space:nowrap}
            .src.ext{background:#eef6ec;color:#2f7a2a}.muted{color:#9aa2b3;font-size:12px}
            </style></head><body>
            <header><h1><span>RichPush</span> · statistics</h1>
            <div class="meta"><span>updated \(HTML.escape(SVGChart.label(generatedAtMs, 1))) UTC</span>
            <span>\(pushCount(s))</span>
            <form method="post" action="/logout" style="margin:0"><button type="submit">Sign out</button></form></div></header>
            <main>
            <section class="cards">\(cards)</section>
            <section class="grid">
            <div class="panel"><h2>Receipts over time</h2><div class="sub">per \(bucket), UTC · distinct receipts</div>
            <div class="legend"><span><i style="background:\(SVGChart.Palette.delivered)"></i>delivered</span><span><i style="background:\(SVGChart.Palette.opened)"></i>opened</span></div>
            \(SVGChart.timeline(s.timeline, bucketSeconds: s.bucketSeconds))</div>
            <div class="panel"><h2>Why media was not attached</h2><div class="sub">\(HTML.number(failures)) delivered receipts with a reason</div>
            \(SVGChart.reasons(s.reasons))</div>
            </section>
            <section class="grid">
            <div class="panel"><h2>Funnel per push</h2><div class="sub">sent → accepted → delivered → opened, each push on its own scale</div>
            <div class="legend"><span><i style="background:\(SVGChart.Palette.sent)"></i>sent</span><span><i style="background:\(SVGChart.Palette.accepted)"></i>accepted</span><span><i style="background:\(SVGChart.Palette.delivered)"></i>delivered</span><span><i style="background:\(SVGChart.Palette.opened)"></i>opened</span></div>
            \(SVGChart.funnel(s.pushes))</div>
            <div class="panel"><h2>Extension timing</h2><div class="sub">elapsed_ms of delivered receipts · p50 \(s.p50Ms.map { HTML.duration(ms: $0) } ?? "—") · p95 \(s.p95Ms.map { HTML.duration(ms: $0) } ?? "—") · budget ≈ 30 s</div>
            \(SVGChart.timing(s.timing, p50: s.p50Ms, p95: s.p95Ms))</div>
            </section>
            <section class="panel"><h2>Pushes</h2><div class="sub">most recently seen first · \(pushCount(s)) · JSON at <code>GET /v1/pushes</code> (<code>?limit=1000</code>)</div>
            <table><thead><tr><th>push_id</th><th title="where sent and accepted come from">source</th><th class="num">sent</th><th class="num">accepted</th><th class="num" title="tokens left out: known inactive or bad">skipped</th><th class="num">delivered</th><th class="num">opened</th><th class="num">display rate</th><th class="num">media attached</th><th>top reason</th><th class="num">media bytes</th><th class="num">p50 / p95</th><th>last seen</th></tr></thead>
            <tbody>\(rows)</tbody></table></section>
            </main></body></html>
            """
    }

    /// "66 pushes", or "12 most recent of 66 pushes · all in GET /v1/pushes" when the table
    /// shows only some.
    static func pushCount(_ s: DashboardSnapshot) -> String {
        let total = max(s.totalPushes, s.pushes.count)
        let noun = total == 1 ? "push" : "pushes"
        guard s.pushes.count < total else { return "\(HTML.number(total)) \(noun)" }
        return "\(HTML.number(s.pushes.count)) most recent of \(HTML.number(total)) \(noun) · all in GET /v1/pushes"
    }

    /// Where a push's sent/accepted figures come from: `APNs`, `FCM` (sent by RichPush), a
    /// recorder's name marked `recorded`, or `receipts only`.
    static func sourceLabel(_ sources: [String]) -> String {
        guard !sources.isEmpty else { return "<span class=\"muted\">receipts only</span>" }
        return sources.map { source in
            switch source {
            case "apns": return "<span class=\"src\">APNs</span>"
            case "fcm": return "<span class=\"src\">FCM</span>"
            default: return "<span class=\"src ext\" title=\"recorded with POST /v1/pushes/{id}/sends\">\(HTML.escape(source)) · recorded</span>"
            }
        }.joined(separator: " ")
    }

    private static func card(_ key: String, _ value: String, _ detail: String) -> String {
        "<div class=\"card\"><div class=\"k\">\(HTML.escape(key))</div><div class=\"v\">\(HTML.escape(value))</div><div class=\"d\">\(HTML.escape(detail))</div></div>"
    }

    /// `2026-11-30T03:27:32.120Z` → `11-30 03:27:32`.
    private static func shortTime(_ iso: String?) -> String {
        guard let iso, iso.count >= 19 else { return "—" }
        let chars = Array(iso)
        return String(chars[5..<10]) + " " + String(chars[11..<19])
    }
}
