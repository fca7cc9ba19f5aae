import Foundation

/// The dashboard's "Webhooks" panel: per endpoint its events, what waits in the outbox, what was
/// delivered and given up (over every instance), and the last error.
enum WebhookDashboardSection {
    /// The panel, or `""` without endpoints.
    ///
    /// - Parameters:
    ///   - endpoints: the configured endpoints.
    ///   - status: the outbox's figures per endpoint key; `nil` when the store could not be read.
    ///   - settings: the timing (for the caption).
    ///   - nowMs: now, ms since 1970.
    /// - Returns: HTML.
    static func render(_ endpoints: [WebhookEndpoint], status: [String: WebhookEndpointStatus]?, settings: WebhookSettings, nowMs: Int) -> String {
        guard !endpoints.isEmpty else { return "" }
        var rows = ""
        for e in endpoints {
            let s = status?[e.key] ?? WebhookEndpointStatus()
            let types = e.types.map { $0.sorted().map(\.rawValue).joined(separator: ", ") } ?? "all events"
            let oldest = s.oldestPendingMs.map { " (oldest \(HTML.duration(ms: max(0, nowMs - $0))) ago)" } ?? ""
            let error =
                s.lastError.map { message in
                    "\(HTML.escape(HTML.truncated(message, 160)))\(s.lastErrorAtMs.map { " <span class=\"when\">\(HTML.escape(HTML.time($0)))</span>" } ?? "")"
                } ?? "—"
            rows += "<tr><td class=\"mono\">\(HTML.escape(e.displayURL))</td><td>\(HTML.escape(types))</td>"
            rows += "<td class=\"num\">\(HTML.number(s.pending))\(HTML.escape(oldest))</td><td class=\"num\">\(HTML.number(s.retrying))</td>"
            rows += "<td class=\"num\">\(HTML.number(s.delivered))</td><td class=\"num\">\(HTML.number(s.failed))</td>"
            rows += "<td class=\"when\">\(s.lastDeliveredAtMs.map { HTML.escape(HTML.time($0)) } ?? "—")</td><td>\(error)</td></tr>"
        }
        let unreadable = status == nil ? "<div class=\"problem\">The outbox could not be read from the store; the figures are missing.</div>" : ""
        let giveUp = settings.giveUpText
        return """
            <section class="panel"><h2>Webhooks</h2><div class="sub">signed events, delivered at least once, in order per token / push · \
            retried up to \(HTML.escape(giveUp)) after each event · all instances · see docs/webhooks.md</div>
            \(unreadable)<div class="scroll"><table><thead><tr><th>endpoint</th><th>events</th><th class="num">pending</th>\
            <th class="num" title="pending deliveries that failed at least once">retrying</th><th class="num">delivered</th>\
            <th class="num" title="given up after the retry window">failed</th><th>last delivered</th><th>last error</th></tr></thead>
            <tbody>\(rows)</tbody></table></div></section>
            """
    }
}
