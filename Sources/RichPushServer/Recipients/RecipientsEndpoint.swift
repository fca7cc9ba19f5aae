import Foundation
import RichPushCore

/// `GET /v1/pushes/{push_id}/recipients?state=delivered|not_delivered|opened` (admin): who saw a
/// push, per device, for apps that turned per-device receipts on (private by default: anonymous
/// receipts name no one). One page as JSON (`limit` 1…1,000, default 100; `after` = the previous
/// page's `next_after`), or every recipient streamed as NDJSON (`format=ndjson`, or
/// `Accept: application/x-ndjson`) or CSV (`format=csv`, or `Accept: text/csv`) for an export:
/// the rows go through a temporary file, a buffer at a time, so a million rows cost no more
/// memory than ten.
///
/// A row: `device_id`, `user_id` (when the device is registered for one), `platform`, `at` (the
/// first delivered or opened receipt; the send, for `not_delivered`), `outcome` (what the
/// extension delivered: `media_attached`, `text_only`, …; the provider's verdict for
/// `not_delivered`). `not_delivered` lists the devices that report per device
/// (`recipient_receipts`), were sent the push and accepted, and sent no `delivered` receipt.
struct RecipientsEndpoint: Endpoint {
    let context: ServerContext

    /// The largest page.
    static let maximumLimit = 1_000

    var access: EndpointAccess { .admin }
    var noStore: Bool { true }

    /// What the answer is.
    enum Format: String {
        case json, ndjson, csv
    }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let pushID = request.pathParameter
        guard !pushID.isEmpty, pushID.utf8.count <= RichPushReceipt.Limits.identifierBytes else {
            throw HTTPResponseError(code: "invalid_push_id", message: "push_id must be 1…\(RichPushReceipt.Limits.identifierBytes) bytes")
        }
        let raw = request.query["state"] ?? "delivered"
        guard let state = RecipientState(rawValue: raw) else {
            throw HTTPResponseError(field: "state", message: "state must be delivered, not_delivered or opened")
        }
        let format = try Self.format(request)
        var limit = 100
        if let text = request.query["limit"] {
            guard text.utf8.count <= 5, let n = Int(text), (1...Self.maximumLimit).contains(n) else {
                throw HTTPResponseError(field: "limit", message: "limit must be an integer from 1 to \(Self.maximumLimit)")
            }
            limit = n
        }
        let after = request.query["after"]
        if let after, RecipientCursor.decode(after) == nil {
            throw HTTPResponseError(field: "after", message: "after must be next_after from the previous page")
        }
        let store = try recipientStore()
        let query = RecipientQuery(pushID: pushID, state: state, after: after, limit: limit)
        switch format {
        case .json:
            let page = try await context.read { _ in try store.recipients(query) }
            let body: RichPushJSONValue = .object([
                "push_id": .string(pushID), "state": .string(state.rawValue), "recipients": .array(page.recipients.map(Self.json)),
                "next_after": page.next.map(RichPushJSONValue.string) ?? .null,
            ])
            return ServerResponse(status: 200, contentType: "application/json", body: body.jsonData(sortedKeys: true) + Data("\n".utf8))
        case .ndjson, .csv:
            let file = try await context.read { _ in
                try ResponseFile.make { writer in
                    if format == .csv { try writer.write("device_id,user_id,platform,at,outcome\r\n") }
                    try store.forEachRecipient(query) { recipient in
                        try writer.write(
                            format == .csv ? Self.csv(recipient) : String(decoding: Self.json(recipient).jsonData(sortedKeys: true), as: UTF8.self) + "\n")
                        return true
                    }
                }
            }
            var response = ServerResponse(
                status: 200, contentType: format == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson",
                headers: [("Content-Disposition", "attachment; filename=\"recipients-\(state.rawValue).\(format.rawValue)\"")])
            response.file = file
            return response
        }
    }

    /// The store's recipients (`501 recipients_unsupported` for a store without).
    func recipientStore() throws(HTTPResponseError) -> any RecipientStore {
        do {
            return try context.store.recipientStore()
        } catch {
            throw HTTPResponseError(status: 501, code: "recipients_unsupported", message: "this server's store keeps no recipients (SQLite and PostgreSQL do)")
        }
    }

    /// `format=` or the `Accept` header.
    static func format(_ request: ServerRequest) throws -> Format {
        if let raw = request.query["format"] {
            guard let format = Format(rawValue: raw) else { throw HTTPResponseError(field: "format", message: "format must be json, ndjson or csv") }
            return format
        }
        let accept = request.header("Accept")?.lowercased() ?? ""
        if accept.contains("application/x-ndjson") { return .ndjson }
        if accept.contains("text/csv") { return .csv }
        return .json
    }

    /// One recipient as JSON.
    static func json(_ r: Recipient) -> RichPushJSONValue {
        .object([
            "device_id": .string(r.deviceID), "user_id": r.userID.map(RichPushJSONValue.string) ?? .null,
            "platform": r.platform.map(RichPushJSONValue.string) ?? .null,
            "at": .string(SQLiteStore.iso8601(r.atMs)), "outcome": r.outcome.map(RichPushJSONValue.string) ?? .null,
        ])
    }

    /// One recipient as a CSV line (RFC 4180 quoting; a field that a spreadsheet would read as a
    /// formula — starting with `=`, `+`, `-`, `@` — gets a leading `'`).
    static func csv(_ r: Recipient) -> String {
        [r.deviceID, r.userID ?? "", r.platform ?? "", SQLiteStore.iso8601(r.atMs), r.outcome ?? ""].map(csvField).joined(separator: ",") + "\r\n"
    }

    static func csvField(_ value: String) -> String {
        var text = value
        if let first = text.first, "=+-@\t\r".contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
