import Foundation

/// The server-rendered dashboard: key figures, receipts over time, funnel per push, reasons for
/// media failures, extension timing, and a page of pushes with search by push id (prefix), a date
/// range and paging; each push links to its own page. Inline CSS and SVG only, no scripts.
enum DashboardPage {
    /// Pushes per page of the table.
    static let pageSize = 25

    /// What one render shows.
    struct View {
        /// Totals, charts (over the date range, if any).
        var snapshot: DashboardSnapshot
        /// The page of pushes in the table.
        var page: PushPage
        /// The search, range and paging parameters as given.
        var parameters: ListParameters
        /// A parameter that could not be used, shown above the table.
        var problem: String?
        /// Now, milliseconds since 1970.
        var generatedAtMs: Int
        /// The webhooks panel (`WebhookDashboardSection`), `""` without webhooks.
        var webhooks = ""
        /// What the send-time media check did over the range.
        var mediaCheck = MediaCheckTotals()
    }

    /// Renders the dashboard of a snapshot alone (its newest pushes as the table).
    ///
    /// - Parameters:
    ///   - s: the store snapshot.
    ///   - generatedAtMs: now, milliseconds since 1970.
    /// - Returns: the HTML document.
    static func render(_ s: DashboardSnapshot, generatedAtMs: Int) -> String {
        render(
            View(
                snapshot: s, page: PushPage(pushes: s.pushes, next: nil, previous: nil),
                parameters: ListParameters(query: PushQuery(limit: pageSize)), problem: nil, generatedAtMs: generatedAtMs))
    }

    /// Renders the page.
    ///
    /// - Parameter view: what to show.
    /// - Returns: the HTML document.
    static func render(_ view: View) -> String {
        let s = view.snapshot
        let pushes = view.page.pushes
        let openRate = s.delivered > 0 ? HTML.percent(Double(s.opened) / Double(s.delivered)) : "—"
        let mediaRate = s.withOutcome > 0 ? HTML.percent(Double(s.mediaAttached) / Double(s.withOutcome)) : "—"
        let displayRate = s.accepted > 0 ? HTML.percent(Double(s.deliveredOfSentPushes) / Double(s.accepted)) : "—"
        let timing = s.p50Ms.map { p50 in "\(HTML.duration(ms: p50)) / \(s.p95Ms.map { HTML.duration(ms: $0) } ?? "—")" } ?? "—"
        let bucket =
            s.bucketSeconds >= 86_400
            ? "\(s.bucketSeconds / 86_400) d"
            : s.bucketSeconds >= 3600 ? "\(s.bucketSeconds / 3600) h" : s.bucketSeconds >= 60 ? "\(s.bucketSeconds / 60) min" : "\(s.bucketSeconds) s"
        let filtered = view.parameters.prefix != nil || view.parameters.from != nil || view.parameters.to != nil

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
        for p in pushes {
            let attached = p.outcomes["media_attached"] ?? 0
            let reported = p.outcomes.values.reduce(0, +)
            let topReason = p.reasons.max { ($0.value, $1.key) < ($1.value, $0.key) }
            let shown = IdentifierRule.displayable(p.pushID)
            let shownID = HTML.truncated(shown, 40)
            let fullID = shownID == p.pushID ? "" : " title=\"\(HTML.escape(shown))\""
            rows += "<tr><td class=\"mono\"\(fullID)><a href=\"/pushes/\(HTML.urlComponent(p.pushID))\">\(HTML.escape(shownID))</a></td>"
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
            rows += "<td class=\"when\">\(HTML.escape(shortTime(p.lastSeen)))</td></tr>"
        }
        if rows.isEmpty {
            rows =
                filtered
                ? "<tr><td colspan=\"13\" class=\"empty\">No push matches. <a href=\"/\">Show all pushes</a></td></tr>"
                : "<tr><td colspan=\"13\" class=\"empty\">No receipts yet. Post one: <code>curl -d push_id=2018001 http://HOST/v1/receipts</code></td></tr>"
        }
        let problem = view.problem.map { "<div class=\"problem\">\(HTML.escape($0))</div>" } ?? ""
        let range = rangeText(view.parameters)

        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>RichPush · statistics</title>
            <meta name="viewport" content="width=device-width,initial-scale=1">
            <style>\(PageStyle.css)</style></head><body>
            <header><h1><a href="/"><span>RichPush</span> · statistics</a></h1>
            <div class="meta"><span>updated \(HTML.escape(SVGChart.label(view.generatedAtMs, 1))) UTC</span>
            <span>\(pushCount(s))</span><a href="/campaigns">Campaigns</a>
            <form method="post" action="/logout" style="margin:0"><button type="submit">Sign out</button></form></div></header>
            <main>
            <section class="cards">\(cards)</section>
            <section class="grid">
            <div class="panel"><h2>Receipts over time</h2><div class="sub">per \(bucket), UTC · distinct receipts\(range.map { " · \(HTML.escape($0))" } ?? "")</div>
            <div class="legend"><span><i style="background:\(SVGChart.Palette.delivered)"></i>delivered</span><span><i style="background:\(SVGChart.Palette.opened)"></i>opened</span></div>
            <div class="chart">\(SVGChart.timeline(s.timeline, bucketSeconds: s.bucketSeconds))</div></div>
            \(MediaCheckPanel.failures(s, totals: view.mediaCheck))
            </section>
            <section class="grid">
            <div class="panel"><h2>Funnel per push</h2><div class="sub">sent → accepted → delivered → opened, each push on its own scale · the first pushes of the table below</div>
            <div class="legend"><span><i style="background:\(SVGChart.Palette.sent)"></i>sent</span><span><i style="background:\(SVGChart.Palette.accepted)"></i>accepted</span><span><i style="background:\(SVGChart.Palette.delivered)"></i>delivered</span><span><i style="background:\(SVGChart.Palette.opened)"></i>opened</span></div>
            <div class="chart">\(SVGChart.funnel(pushes))</div></div>
            <div class="panel"><h2>Extension timing</h2><div class="sub">elapsed_ms of delivered receipts · p50 \(s.p50Ms.map { HTML.duration(ms: $0) } ?? "—") · p95 \(s.p95Ms.map { HTML.duration(ms: $0) } ?? "—") · budget ≈ 30 s</div>
            <div class="chart">\(SVGChart.timing(s.timing, p50: s.p50Ms, p95: s.p95Ms))</div></div>
            </section>
            \(view.webhooks)
            <section class="panel"><h2>Pushes</h2><div class="sub">\(HTML.escape(listCaption(view.parameters))) · JSON at <code>GET /v1/pushes</code></div>
            \(filterForm(view.parameters))
            \(problem)
            <div class="scroll"><table><thead><tr><th>push_id</th><th title="where sent and accepted come from">source</th><th class="num">sent</th><th class="num">accepted</th><th class="num" title="tokens left out: known inactive or bad">skipped</th><th class="num">delivered</th><th class="num">opened</th><th class="num">display rate</th><th class="num">media attached</th><th>top reason</th><th class="num">media bytes</th><th class="num">p50 / p95</th><th>last seen</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            \(pager(view))
            </section>
            </main></body></html>
            """
    }

    /// "66 pushes".
    static func pushCount(_ s: DashboardSnapshot) -> String {
        let total = max(s.totalPushes, s.pushes.count)
        return "\(HTML.number(total)) \(total == 1 ? "push" : "pushes")"
    }

    /// What the table lists, e.g. "newest first, started 2026-11-01 … 2026-11-30".
    static func listCaption(_ p: ListParameters) -> String {
        var text = p.prefix.map { "push ids starting with “\(IdentifierRule.displayable($0))”, in push-id order" } ?? "newest first (by first send or receipt)"
        if let range = rangeText(p) { text += ", started \(range)" }
        return text + ", \(p.query.limit) a page"
    }

    /// "2026-11-01 … 2026-11-30" for the range given, `nil` without one.
    static func rangeText(_ p: ListParameters) -> String? {
        guard p.from != nil || p.to != nil else { return nil }
        return "\(p.from ?? "start") … \(p.to ?? "now")"
    }

    /// The search and date-range form (GET, so the URL can be bookmarked).
    static func filterForm(_ p: ListParameters) -> String {
        func date(_ value: String?) -> String {
            guard let value, value.utf8.count == 10 else { return "" }
            return " value=\"\(HTML.escape(value))\""
        }
        let prefix = p.prefix.map { " value=\"\(HTML.escape($0))\"" } ?? ""
        let clear = p.prefix != nil || p.from != nil || p.to != nil ? "<a href=\"/\">Clear</a>" : ""
        return """
            <form class="filters" method="get" action="/">
            <label>push id starts with<input type="search" name="q" placeholder="e.g. 2018"\(prefix)></label>
            <label>started from (UTC)<input type="date" name="from"\(date(p.from))></label>
            <label>to (UTC, inclusive)<input type="date" name="to"\(date(p.to))></label>
            <button type="submit">Apply</button>\(clear)
            </form>
            """
    }

    /// "← Newer" / "Older →" links (keyset cursors), keeping the search and range.
    static func pager(_ view: View) -> String {
        let p = view.parameters
        func link(_ name: String, _ cursor: PushCursor) -> String {
            var items: [(String, String)] = []
            if let q = p.prefix { items.append(("q", q)) }
            if let from = p.from { items.append(("from", from)) }
            if let to = p.to { items.append(("to", to)) }
            items.append((name, cursor.token))
            return "/?" + items.map { "\($0.0)=\(HTML.urlComponent($0.1))" }.joined(separator: "&")
        }
        let newer = p.prefix == nil ? "← Newer" : "← Previous"
        let older = p.prefix == nil ? "Older →" : "Next →"
        let previous = view.page.previous.map { "<a href=\"\(HTML.escape(link("before", $0)))\">\(newer)</a>" } ?? "<span class=\"off\">\(newer)</span>"
        let next = view.page.next.map { "<a href=\"\(HTML.escape(link("after", $0)))\">\(older)</a>" } ?? "<span class=\"off\">\(older)</span>"
        return "<div class=\"pager\">\(previous)<span>\(HTML.number(view.page.pushes.count)) on this page</span>\(next)</div>"
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

    static func card(_ key: String, _ value: String, _ detail: String) -> String {
        "<div class=\"card\"><div class=\"k\">\(HTML.escape(key))</div><div class=\"v\">\(HTML.escape(value))</div><div class=\"d\">\(HTML.escape(detail))</div></div>"
    }

    /// `2026-11-30T03:27:32.120Z` → `11-30 03:27:32`.
    static func shortTime(_ iso: String?) -> String {
        guard let iso, iso.count >= 19 else { return "—" }
        let chars = Array(iso)
        return String(chars[5..<10]) + " " + String(chars[11..<19])
    }
}
