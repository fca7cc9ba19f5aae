import Foundation

/// The dashboard's campaign pages: the list (`GET /campaigns`) and one campaign with its
/// progress (`GET /campaigns/{id}`), server-rendered like the rest of the dashboard.
enum CampaignPage {
    /// The page's frame: header, sign-out, the content.
    private static func frame(title: String, generatedAtMs: Int, refresh: Bool, _ body: String) -> String {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><title>RichPush · \(HTML.escape(title))</title>
        <meta name="viewport" content="width=device-width,initial-scale=1">\(refresh ? "<meta http-equiv=\"refresh\" content=\"5\">" : "")
        <style>\(PageStyle.css)</style></head><body>
        <header><h1><a href="/"><span>RichPush</span> · statistics</a></h1>
        <div class="meta"><span>updated \(HTML.escape(SVGChart.label(generatedAtMs, 1))) UTC</span>
        <form method="post" action="/logout" style="margin:0"><button type="submit">Sign out</button></form></div></header>
        <main>\(body)</main></body></html>
        """
    }

    /// Targets with a result (accepted, skipped or failed).
    static func done(_ c: CampaignRecord) -> Int { c.accepted + c.skipped + c.failed }

    /// A progress bar: the share of targets with a result.
    static func bar(_ c: CampaignRecord) -> String {
        let share = c.targets > 0 ? Double(done(c)) / Double(c.targets) : 1
        let percent = String(format: "%.1f", share * 100)
        return "<div style=\"background:#e5e7eb;border-radius:4px;height:10px;min-width:120px\" title=\"\(percent) %\">"
            + "<div style=\"background:\(SVGChart.Palette.accepted);height:10px;border-radius:4px;width:\(percent)%\"></div></div>"
    }

    /// The list of campaigns, newest first.
    ///
    /// - Parameters:
    ///   - campaigns: the page's campaigns.
    ///   - next: the cursor of the next page, if any.
    ///   - generatedAtMs: now, ms since 1970.
    /// - Returns: the HTML document.
    static func list(_ campaigns: [CampaignRecord], next: String?, generatedAtMs: Int) -> String {
        var rows = campaigns.map { c in
            "<tr><td class=\"mono\"><a href=\"/campaigns/\(HTML.urlComponent(c.id))\">\(HTML.escape(String(c.id.prefix(8))))</a></td>"
                + "<td>\(HTML.escape(HTML.truncated(c.title ?? "—", 60)))</td><td>\(HTML.escape(c.state))</td><td>\(HTML.escape(c.audience))</td>"
                + "<td class=\"num\">\(HTML.number(done(c)))/\(HTML.number(c.targets))</td><td>\(bar(c))</td>"
                + "<td class=\"num\">\(HTML.number(c.accepted))</td><td class=\"num\">\(HTML.number(c.failed))</td>"
                + "<td>\(HTML.escape(HTML.time(c.createdAtMs)))</td></tr>"
        }.joined()
        if rows.isEmpty { rows = "<tr><td colspan=\"9\" class=\"empty\">No campaign yet: POST /v1/campaigns or richpush campaign create</td></tr>" }
        let more = next.map { "<div class=\"crumbs\"><a href=\"/campaigns?before=\(HTML.urlComponent($0))\">Older →</a></div>" } ?? ""
        return frame(
            title: "campaigns", generatedAtMs: generatedAtMs, refresh: campaigns.contains { $0.state == "running" || $0.state == "scheduled" },
            """
            <div class="crumbs"><a href="/">← All pushes</a> · JSON at <code>GET /v1/campaigns</code></div>
            <div class="panel"><h2>Campaigns</h2><div class="sub">newest first · done = targets with a result</div>
            <table><thead><tr><th>campaign</th><th>title</th><th>state</th><th>audience</th><th class="num">done</th><th>progress</th>
            <th class="num">accepted</th><th class="num">failed</th><th>created (UTC)</th></tr></thead><tbody>\(rows)</tbody></table>\(more)</div>
            """)
    }

    /// The variants' funnels side by side, and the test's state.
    static func variantsPanel(_ c: CampaignRecord, variants: [CampaignVariant], funnels: [VariantFunnel]) -> String {
        guard !variants.isEmpty else { return "" }
        func percent(_ r: Double?) -> String { r.map { String(format: "%.1f %%", $0 * 100) } ?? "—" }
        let rows = variants.map { v -> String in
            let f = funnels.first { $0.variant == v.name }
            let winner = c.winner == v.name ? " <strong>winner</strong>" : ""
            return "<tr><td class=\"mono\">\(HTML.escape(v.name))\(winner)</td><td>\(HTML.escape(HTML.truncated(v.title ?? "—", 40)))</td>"
                + "<td class=\"mono\"><a href=\"/pushes/\(HTML.urlComponent(v.pushID))\">\(HTML.identifier(HTML.truncated(v.pushID, 40)))</a></td>"
                + "<td class=\"num\">\(v.weight) %</td><td class=\"num\">\(HTML.number(f?.sent ?? 0))</td><td class=\"num\">\(HTML.number(f?.accepted ?? 0))</td>"
                + "<td class=\"num\">\(HTML.number(f?.displayed ?? 0))</td><td class=\"num\">\(HTML.number(f?.opened ?? 0))</td>"
                + "<td class=\"num\">\(HTML.number(f?.converted ?? 0))</td><td class=\"num\">\(percent(f?.displayRate))</td>"
                + "<td class=\"num\">\(percent(f?.displayToOpen))</td><td class=\"num\">\(percent(f?.conversionRate))</td></tr>"
        }.joined()
        var test = "no test: the whole audience is split by the weights"
        if let share = c.testSharePercent {
            let by = c.winnerBy == VariantRanking.Metric.conversions.rawValue ? "conversions ÷ sent" : "opened ÷ displayed"
            let window = "\((c.testWindowMs ?? 0) / 60_000) min"
            if let winner = c.winner {
                test = "test of \(share) % of the audience, then \(winner) (by \(by)) to the rest, picked \(c.winnerAtMs.map { HTML.time($0) + " UTC" } ?? "")"
            } else {
                test = "test: \(share) % of the audience first; after \(window) (and the test's last chunk) the winner by \(by) goes to the rest"
            }
        }
        return """
            <div class="panel" style="margin-bottom:16px"><h2>Variants</h2><div class="sub">\(HTML.escape(test)) · each variant is its own push: its funnel below, its receipts on its page</div>
            <div class="scroll"><table><thead><tr><th>variant</th><th>title</th><th>push</th><th class="num">weight</th><th class="num">sent</th>
            <th class="num">accepted</th><th class="num">displayed</th><th class="num">opened</th><th class="num">converted</th>
            <th class="num">display rate</th><th class="num">opened ÷ displayed</th><th class="num">converted ÷ sent</th></tr></thead>
            <tbody>\(rows)</tbody></table></div></div>
            """
    }

    /// A page saying what is wrong (an unknown or malformed campaign id).
    ///
    /// - Parameters:
    ///   - message: what is wrong.
    ///   - generatedAtMs: now, ms since 1970.
    ///   - title: the page's title.
    /// - Returns: the HTML document.
    static func message(_ message: String, generatedAtMs: Int, title: String = "no such campaign") -> String {
        frame(
            title: title, generatedAtMs: generatedAtMs, refresh: false,
            "<div class=\"crumbs\"><a href=\"/campaigns\">← All campaigns</a></div><div class=\"panel\"><p>\(HTML.escape(message))</p></div>")
    }

    /// One campaign's page.
    ///
    /// - Parameters:
    ///   - c: the campaign.
    ///   - generatedAtMs: now, ms since 1970.
    ///   - media: what the media check found and did at creation (its push's and variants' `push_media` rows).
    ///   - variants: its variants.
    ///   - funnels: their funnels.
    ///   - recipients: the section listing who saw it (`RecipientsPanel`), `""` for none.
    /// - Returns: the HTML document.
    static func detail(
        _ c: CampaignRecord, generatedAtMs: Int, media: [PushMediaRecord] = [], variants: [CampaignVariant] = [], funnels: [VariantFunnel] = [],
        recipients: String = ""
    ) -> String {
        var cards = ""
        cards += DashboardPage.card(
            "State", c.state, c.state == "scheduled" ? "starts \(HTML.time(c.sendAtMs)) UTC" : "since \(HTML.time(c.startedAtMs ?? c.createdAtMs)) UTC")
        cards += DashboardPage.card("Done", "\(HTML.number(done(c))) / \(HTML.number(c.targets))", "targets with a result")
        cards += DashboardPage.card("Accepted", HTML.number(c.accepted), "by APNs / FCM")
        cards += DashboardPage.card("Skipped", HTML.number(c.skipped), "known inactive, bad or deleted")
        cards += DashboardPage.card("Failed", HTML.number(c.failed), "refused or inactive now")
        cards += DashboardPage.card("Resent after a crash", HTML.number(c.resentAfterCrash), "in flight when a worker died; one notification (collapse id)")
        var facts: [(String, String)] = [
            ("campaign id", c.id), ("audience", c.audience), ("provider", c.provider ?? "each device's own"), ("apns-collapse-id", c.collapseID),
            ("in flight", HTML.number(c.inFlight)), ("throttle", c.perMinute.map { "\(HTML.number($0)) a minute over all instances" } ?? "none"),
            ("created", HTML.time(c.createdAtMs) + " UTC"),
        ]
        if let title = c.title { facts.insert(("alert title", title), at: 1) }
        if let finished = c.finishedAtMs { facts.append((c.state == "cancelled" ? "cancelled" : "finished", HTML.time(finished) + " UTC")) }
        if let error = c.lastError { facts.append(("last error", error)) }
        let factRows = facts.map { "<tr><th>\(HTML.escape($0.0))</th><td>\(HTML.escape($0.1))</td></tr>" }.joined()
        return frame(
            title: "campaign \(String(c.id.prefix(8)))", generatedAtMs: generatedAtMs, refresh: c.state == "running" || c.state == "scheduled",
            """
            <div class="crumbs"><a href="/campaigns">← All campaigns</a> · <a href="/pushes/\(HTML.urlComponent(c.pushID))">push \(HTML.identifier(HTML.truncated(c.pushID, 60)))</a> (its funnel) · JSON at <code>GET /v1/campaigns/\(HTML.escape(c.id))</code></div>
            <h2 class="mono" style="margin:0 0 14px;font-size:19px;word-break:break-all">campaign \(HTML.escape(c.id))</h2>
            <section class="cards">\(cards)</section>
            <div class="panel" style="margin-bottom:16px"><h2>Progress</h2><div class="sub">\(HTML.number(done(c))) of \(HTML.number(c.targets)) targets</div>\(bar(c))
            <table style="margin-top:12px"><tbody>\(factRows)</tbody></table></div>
            \(variantsPanel(c, variants: variants, funnels: funnels))
            \(MediaCheckPanel.push(media, title: "Media checked at creation", subtitle: c.mediaReport == nil && !c.hasVariants ? "no media URL in the content" : "each media URL fetched once when the campaign was created, before its first chunk, as the extension will (the same check as POST /v1/pushes); the sends carry what is shown here"))
            \(recipients)
            """)
    }
}
