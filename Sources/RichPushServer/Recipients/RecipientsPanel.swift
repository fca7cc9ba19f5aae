import Foundation
import RichPushCore

/// The dashboard's "Who saw it" section on a push's page and on a campaign's: one page of the
/// push's recipients in one state (delivered, not delivered, opened), links to switch state and
/// to page on, and the exports (CSV, NDJSON) of `GET /v1/pushes/{id}/recipients`. Empty of rows
/// (and saying why) while no receipt names a device: per-device receipts are opt-in.
enum RecipientsPanel {
    /// Rows per page on the dashboard.
    static let pageSize = 20

    /// The section.
    ///
    /// - Parameters:
    ///   - pushID: the push.
    ///   - state: the state shown.
    ///   - page: its first page (or the page after `after`).
    ///   - base: the page's own path (`/pushes/{id}` or `/campaigns/{id}`), for the links.
    /// - Returns: HTML.
    static func render(pushID: String, state: RecipientState, page: RecipientPage, base: String) -> String {
        let api = "/v1/pushes/\(HTML.urlComponent(pushID))/recipients"
        let tabs = RecipientState.allCases.map { s in
            let label = s == .notDelivered ? "not delivered" : s.rawValue
            return s == state ? "<strong>\(label)</strong>" : "<a href=\"\(base)?recipients=\(s.rawValue)#recipients\">\(label)</a>"
        }.joined(separator: " · ")
        var rows = page.recipients.map { r in
            "<tr><td class=\"mono\">\(HTML.escape(r.deviceID))</td><td>\(HTML.escape(r.userID.map(IdentifierRule.displayable) ?? "—"))</td><td>\(HTML.escape(r.platform ?? "—"))</td>"
                + "<td class=\"when\">\(HTML.escape(HTML.time(r.atMs)))</td><td class=\"mono\">\(HTML.escape(r.outcome ?? "—"))</td></tr>"
        }.joined()
        if rows.isEmpty {
            rows =
                "<tr><td colspan=\"5\" class=\"empty\">No device reported \(state == .notDelivered ? "missing" : state.rawValue) for this push. Receipts name their device only where the app turned per-device receipts on (RecipientReceipts; docs/campaigns.md): anonymous receipts are counted above, never listed.</td></tr>"
        }
        let more =
            page.next.map {
                "<div class=\"crumbs\"><a href=\"\(base)?recipients=\(state.rawValue)&amp;after=\(HTML.urlComponent($0))#recipients\">Next \(pageSize) →</a></div>"
            } ?? ""
        let when = state == .notDelivered ? "sent (UTC)" : "\(state.rawValue) (UTC)"
        return """
            <section class="panel" id="recipients" style="margin-bottom:16px"><h2>Who saw it</h2>
            <div class="sub">\(tabs) · per device, from receipts that name it (opt-in, never the token) · export: <a href="\(api)?state=\(state.rawValue)&amp;format=csv">CSV</a>, <a href="\(api)?state=\(state.rawValue)&amp;format=ndjson">NDJSON</a></div>
            <div class="scroll"><table><thead><tr><th>device</th><th>user</th><th>platform</th><th>\(when)</th><th>outcome</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>\(more)</section>
            """
    }

    /// The state and cursor a page's query asks for (`?recipients=opened&after=…`); anything else
    /// is the first page of `delivered`.
    static func query(_ request: ServerRequest, pushID: String) -> RecipientQuery {
        let state = request.query["recipients"].flatMap(RecipientState.init(rawValue:)) ?? .delivered
        let after = request.query["after"].flatMap { RecipientCursor.decode($0) == nil ? nil : $0 }
        return RecipientQuery(pushID: pushID, state: state, after: after, limit: pageSize)
    }

    /// The section for a page request, or `""` for a store without recipients.
    static func section(_ request: ServerRequest, pushID: String, base: String, context: ServerContext) async throws(HTTPResponseError) -> String {
        let query = query(request, pushID: pushID)
        let page = try await context.read { store -> RecipientPage? in
            guard let recipients = try? store.recipientStore() else { return nil }
            return try recipients.recipients(query)
        }
        guard let page else { return "" }
        return render(pushID: pushID, state: query.state, page: page, base: base)
    }
}
