import Foundation

/// One push's page (`GET /pushes/{push_id}`): its funnel, key figures, what the device tokens'
/// sends came to, what the send-time media check found and did, why media was not attached, and
/// the extension's timing for this push.
enum PushDetailPage {
    /// Renders the page.
    ///
    /// - Parameters:
    ///   - detail: the push.
    ///   - media: what the send-time media check found and did per media URL (`push_media`).
    ///   - recipients: the "Who saw it" section (`RecipientsPanel`), `""` for none.
    ///   - generatedAtMs: now, milliseconds since 1970.
    /// - Returns: the HTML document.
    static func render(_ detail: PushDetail, media: [PushMediaRecord] = [], recipients: String = "", generatedAtMs: Int) -> String {
        let p = detail.statistics
        let shown = IdentifierRule.displayable(p.pushID)
        let openRate = p.delivered > 0 ? HTML.percent(Double(p.opened) / Double(p.delivered)) : "—"
        let reported = p.outcomes.values.reduce(0, +)
        let attached = p.outcomes["media_attached"] ?? 0
        let mediaRate = reported > 0 ? HTML.percent(Double(attached) / Double(reported)) : "—"
        let timing = p.elapsedMs.p50.map { "\(HTML.duration(ms: $0)) / \(p.elapsedMs.p95.map { HTML.duration(ms: $0) } ?? "—")" } ?? "—"

        var cards = ""
        cards += DashboardPage.card("Sent", p.sent.map(HTML.number) ?? "—", p.sent == nil ? "no send recorded" : "tokens the provider answered")
        cards += DashboardPage.card("Accepted", p.accepted.map(HTML.number) ?? "—", "accepted by APNs / FCM")
        cards += DashboardPage.card("Delivered", HTML.number(p.delivered), "shown by the service extension")
        cards += DashboardPage.card("Display rate", p.displayRate.map(HTML.percent) ?? "—", "delivered / accepted")
        cards += DashboardPage.card("Opened", HTML.number(p.opened), "open rate \(openRate) of delivered")
        cards += DashboardPage.card("Media attached", mediaRate, "\(HTML.number(attached)) of \(HTML.number(reported)) · \(HTML.bytes(p.mediaBytes))")

        var facts: [(String, String)] = []
        if let title = detail.title { facts.append(("alert title", title)) }
        if let skipped = p.skipped, skipped > 0 { facts.append(("skipped tokens", HTML.number(skipped) + " (known inactive or bad)")) }
        if let first = detail.firstSentMs { facts.append(("first sent", HTML.time(first) + " UTC")) }
        if let last = detail.lastSentMs, last != detail.firstSentMs { facts.append(("last sent", HTML.time(last) + " UTC")) }
        facts.append(("first receipt", p.delivered + p.opened > 0 ? longTime(p.firstSeen) : "—"))
        facts.append(("last receipt", p.delivered + p.opened > 0 ? longTime(p.lastSeen) : "—"))
        facts.append(("extension time p50 / p95", timing))
        let factRows =
            "<tr><th>source</th><td>\(DashboardPage.sourceLabel(p.sources))</td></tr>"
            + facts.map { "<tr><th>\(HTML.escape($0.0))</th><td>\(HTML.escape($0.1))</td></tr>" }.joined()

        var tokenRows = detail.tokenOutcomes.map {
            "<tr><td class=\"mono\">\(HTML.escape($0.outcome))</td><td class=\"num\">\(HTML.number($0.count))</td></tr>"
        }.joined()
        if tokenRows.isEmpty { tokenRows = "<tr><td colspan=\"2\" class=\"empty\">No per-token results recorded</td></tr>" }
        var outcomeRows = p.outcomes.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .map { "<tr><td class=\"mono\">\(HTML.escape($0.key))</td><td class=\"num\">\(HTML.number($0.value))</td></tr>" }.joined()
        if outcomeRows.isEmpty { outcomeRows = "<tr><td colspan=\"2\" class=\"empty\">No outcome reported</td></tr>" }

        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>RichPush · push \(HTML.escape(HTML.truncated(shown, 40)))</title>
            <meta name="viewport" content="width=device-width,initial-scale=1">
            <style>\(PageStyle.css)</style></head><body>
            <header><h1><a href="/"><span>RichPush</span> · statistics</a></h1>
            <div class="meta"><span>updated \(HTML.escape(SVGChart.label(generatedAtMs, 1))) UTC</span>
            <form method="post" action="/logout" style="margin:0"><button type="submit">Sign out</button></form></div></header>
            <main>
            <div class="crumbs"><a href="/">← All pushes</a> · JSON at <code>GET /v1/pushes/\(HTML.escape(HTML.urlComponent(p.pushID)))</code></div>
            <h2 class="mono" style="margin:0 0 14px;font-size:19px;word-break:break-all">push \(HTML.escape(shown))</h2>
            <section class="cards">\(cards)</section>
            <section class="grid">
            <div class="panel"><h2>Funnel</h2><div class="sub">sent → accepted → delivered → opened</div>
            <div class="legend"><span><i style="background:\(SVGChart.Palette.sent)"></i>sent</span><span><i style="background:\(SVGChart.Palette.accepted)"></i>accepted</span><span><i style="background:\(SVGChart.Palette.delivered)"></i>delivered</span><span><i style="background:\(SVGChart.Palette.opened)"></i>opened</span></div>
            <div class="chart">\(SVGChart.funnel([p]))</div>
            <table style="margin-top:12px"><tbody>\(factRows)</tbody></table></div>
            <div class="panel"><h2>Device tokens</h2><div class="sub">what each token's send came to (provider outcome)</div>
            <table><thead><tr><th>outcome</th><th class="num">tokens</th></tr></thead><tbody>\(tokenRows)</tbody></table></div>
            </section>
            \(MediaCheckPanel.push(media))
            \(recipients)
            <section class="grid3">
            <div class="panel"><h2>Extension timing</h2><div class="sub">elapsed_ms of this push's delivered receipts · p50 \(p.elapsedMs.p50.map { HTML.duration(ms: $0) } ?? "—") · p95 \(p.elapsedMs.p95.map { HTML.duration(ms: $0) } ?? "—")</div>
            <div class="chart">\(SVGChart.timing(detail.timing, p50: p.elapsedMs.p50, p95: p.elapsedMs.p95))</div></div>
            <div class="panel"><h2>Why media was not attached</h2><div class="sub">\(HTML.number(detail.reasons.map(\.count).reduce(0, +))) delivered receipts with a reason</div>
            <div class="chart">\(SVGChart.reasons(detail.reasons))</div></div>
            <div class="panel"><h2>Outcomes</h2><div class="sub">what the extension did with each delivered notification</div>
            <table><thead><tr><th>outcome</th><th class="num">receipts</th></tr></thead><tbody>\(outcomeRows)</tbody></table></div>
            </section>
            </main></body></html>
            """
    }

    /// `2026-11-30T03:27:32.120Z` → `2026-11-30 03:27:32 UTC`.
    static func longTime(_ iso: String?) -> String {
        guard let iso, iso.count >= 19 else { return "—" }
        let chars = Array(iso)
        return String(chars[0..<10]) + " " + String(chars[11..<19]) + " UTC"
    }

    /// The page for a push id that is not known (404) or not valid (400).
    ///
    /// - Parameters:
    ///   - pushID: the id asked for.
    ///   - message: what is wrong.
    /// - Returns: the HTML document.
    static func notFound(_ pushID: String, message: String) -> String {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><title>RichPush · no such push</title>
        <style>\(PageStyle.css)</style></head><body>
        <header><h1><a href="/"><span>RichPush</span> · statistics</a></h1></header>
        <main><div class="crumbs"><a href="/">← All pushes</a></div>
        <div class="panel"><h2 class="mono">push \(HTML.identifier(HTML.truncated(pushID, 140)))</h2><p>\(HTML.escape(message))</p></div></main></body></html>
        """
    }
}
