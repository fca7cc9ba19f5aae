import Foundation
import RichPushCore

/// What the send-time media check (`POST /v1/pushes`) did, on the dashboard and on a push's page:
/// media failures stopped at send (by reason: optimised to the edge's JPEG, sent as text, or the
/// push refused) beside the media failures that still reached devices (the receipts' reasons),
/// and per media URL of one push what the probe found and what was sent.
enum MediaCheckPanel {
    /// The dashboard's media-failure panel: prevented at send, next to still failed on devices.
    ///
    /// - Parameters:
    ///   - snapshot: the receipts' figures (their reasons).
    ///   - totals: the media check's counts over the same range.
    /// - Returns: the panel's HTML.
    static func failures(_ snapshot: DashboardSnapshot, totals: MediaCheckTotals) -> String {
        let onDevices = max(snapshot.withReason, snapshot.reasons.map(\.count).reduce(0, +))
        let prevented = totals.prevented
        let caught = prevented.map(\.count).reduce(0, +)
        return """
            <div class="panel"><h2>Media failures: prevented at send, and on devices</h2>
            <div class="sub">\(HTML.escape(summary(totals, caught: caught)))</div>
            <div class="minor">Prevented at send · \(HTML.number(caught)) media URL\(caught == 1 ? "" : "s") the extension would not have attached</div>
            <div class="chart">\(SVGChart.reasons(prevented, label: "Media failures prevented at send", none: "None caught at send yet", color: SVGChart.Palette.prevented))</div>
            <div class="minor">Still failed on devices · \(HTML.number(onDevices)) delivered receipt\(onDevices == 1 ? "" : "s") with a reason</div>
            <div class="chart">\(SVGChart.reasons(snapshot.reasons))</div></div>
            """
    }

    /// "the send-time check caught 12: 9 optimised to the edge's JPEG, 2 sent as text, 1 push refused; 4 more lightened (over 300 KB or 2048 px)".
    static func summary(_ totals: MediaCheckTotals, caught: Int) -> String {
        let checked = totals.rows.map(\.count).reduce(0, +)
        guard checked > 0 else {
            return "POST /v1/pushes checks each media URL before sending (docs/media-at-send.md); nothing checked in this range yet"
        }
        let fixed = totals.rows.filter { $0.action == "optimized" && $0.reason != nil }.map(\.count).reduce(0, +)
        let text = totals.rows.filter { $0.action == "sent_text" && $0.reason != nil }.map(\.count).reduce(0, +)
        let refused = totals.rows.filter { $0.action == "refused" && $0.reason != nil }.map(\.count).reduce(0, +)
        let parts = [(fixed, "optimised to the edge's JPEG"), (text, "sent as text"), (refused, "in refused pushes (422)")]
            .filter { $0.0 > 0 }.map { "\(HTML.number($0.0)) \($0.1)" }
        var line = "\(HTML.number(checked)) media URL\(checked == 1 ? "" : "s") checked at send; \(HTML.number(caught)) would have failed"
        if !parts.isEmpty { line += ": " + parts.joined(separator: ", ") }
        if totals.lightened > 0 { line += "; \(HTML.number(totals.lightened)) more lightened (over 300 KB or 2048 px)" }
        return line
    }

    /// A push's page: per media URL what the probe found (reason, original type and bytes) and
    /// what was done (kept, optimised → the copy's type and bytes, sent as text, refused).
    ///
    /// - Parameters:
    ///   - records: the push's `push_media` rows.
    ///   - title: the section's heading.
    ///   - subtitle: what was checked when.
    /// - Returns: the section's HTML, or `""` when the push's media was not checked.
    static func push(
        _ records: [PushMediaRecord], title: String = "Media checked at send",
        subtitle: String = "each media URL fetched once before the first token, as the extension will (POST /v1/pushes); the original URL is kept"
    ) -> String {
        guard !records.isEmpty else { return "" }
        var rows = ""
        for r in records {
            let url = HTML.truncated(r.originalURL, 70)
            let full = url == r.originalURL ? "" : " title=\"\(HTML.escape(r.originalURL))\""
            let found = r.reason.map { "<span class=\"mono\">\(HTML.escape($0))</span>" } ?? "attachable"
            let original = [r.originalType.map(typeName), r.originalBytes.map(HTML.bytes)].compactMap { $0 }.joined(separator: " · ")
            let sent: String
            switch r.action {
            case "optimized":
                let copy = [r.optimizedType.map(typeName), r.optimizedBytes.map(HTML.bytes)].compactMap { $0 }.joined(separator: " · ")
                let edge = r.sentURL.map { " <span class=\"muted mono\" title=\"\(HTML.escape($0))\">\(HTML.escape(HTML.truncated($0, 34)))</span>" } ?? ""
                sent = "optimised → \(HTML.escape(copy))\(edge)"
            case "sent_text": sent = "removed: the push went out as text"
            case "refused": sent = "push refused (422 media_refused): nothing sent"
            default: sent = "sent as it is"
            }
            rows +=
                "<tr><td class=\"mono\"\(full)>\(HTML.escape(url))</td><td>\(found)</td><td class=\"num\">\(HTML.escape(original.isEmpty ? "—" : original))</td><td>\(sent)</td></tr>"
        }
        return """
            <section class="panel" style="margin-bottom:16px"><h2>\(HTML.escape(title))</h2>
            <div class="sub">\(HTML.escape(subtitle))</div>
            <div class="scroll"><table><thead><tr><th>media URL</th><th>the probe found</th><th class="num">original</th><th>what was sent</th></tr></thead>
            <tbody>\(rows)</tbody></table></div></section>
            """
    }

    /// `image/jpeg` → `JPEG`, `org.webmproject.webp` → `WebP`: a short name for a media type or UTType.
    static func typeName(_ type: String) -> String {
        if let format = RichPushMediaFormat.known.first(where: { $0.uniformTypeIdentifier == type }) { return format.name }
        return ["image/jpeg": "JPEG", "image/png": "PNG", "image/gif": "GIF"][type] ?? type
    }
}
