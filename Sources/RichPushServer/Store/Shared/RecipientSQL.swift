import Foundation

/// The recipients' SQL, one text for both stores (`$1`, `$2` … numbered parameters: SQLite reads
/// them as `?1`, `?2` …), with the two dialects' differences (booleans, byte-order comparison).
///
/// - delivered / opened: the receipts that name a device (`receipts_recipients`, a partial index
///   over `push_id, event, device_id`), one row per device in `device_id` order, joined to its
///   registration (the user, the platform) when the device is still registered.
/// - not delivered: the push's accepted sends (`push_tokens`, in token order) to devices that report
///   per device (`recipient_receipts`) and sent no `delivered` receipt for it.
struct RecipientSQL: Sendable {
    /// Which store's SQL.
    enum Dialect: Sendable {
        /// SQLite: `?n` parameters, integers for booleans, byte order by default.
        case sqlite
        /// PostgreSQL: `$n` parameters, booleans, `COLLATE "C"` for byte order.
        case postgres
    }

    let dialect: Dialect

    /// `text` with the dialect's parameters.
    private func sql(_ text: String) -> String {
        dialect == .sqlite ? text.replacingOccurrences(of: "$", with: "?") : text
    }

    private var byteOrder: String { dialect == .postgres ? " COLLATE \"C\"" : "" }
    private var isTrue: String { dialect == .postgres ? "true" : "1" }

    /// Delivered or opened devices: `$1` push, `$2` event, `$3` the cursor (`''` for the first
    /// page), `$4` the limit. Columns: device id, first time, an outcome, user, platform.
    func reported(limited: Bool) -> String {
        sql(
            """
            SELECT r.device_id, MIN(r.received_at_ms), MAX(r.outcome), MAX(d.user_id), MAX(d.platform)
            FROM receipts r LEFT JOIN devices d ON d.device_id = r.device_id
            WHERE r.push_id = $1 AND r.event = $2 AND r.device_id IS NOT NULL AND r.device_id\(byteOrder) > $3
            GROUP BY r.device_id ORDER BY r.device_id\(byteOrder)\(limited ? " LIMIT $4" : "")
            """)
    }

    /// Devices sent the push, accepted, reporting per device, with no delivered receipt: `$1` push,
    /// `$2` the cursor token (`''` first), `$3` the limit. Columns: device id, sent at, outcome,
    /// user, platform, token (the cursor).
    func notDelivered(limited: Bool) -> String {
        sql(
            """
            SELECT d.device_id, t.sent_at_ms, t.outcome, d.user_id, d.platform, t.device_token
            FROM push_tokens t JOIN devices d ON d.device_token = t.device_token
            WHERE t.push_id = $1 AND t.device_token\(byteOrder) > $2 AND d.recipient_receipts = \(isTrue) AND d.device_id IS NOT NULL
              AND (t.status = 200 OR t.outcome = 'accepted')
              AND NOT EXISTS (SELECT 1 FROM receipts r WHERE r.push_id = t.push_id AND r.event = 'delivered' AND r.device_id = d.device_id)
            ORDER BY t.device_token\(byteOrder)\(limited ? " LIMIT $3" : "")
            """)
    }

    /// A user's pushes, newest first: `$1` user, `$2` cursor time, `$3` cursor push id, `$4` cursor
    /// device id (`$2` = a time past every send for the first page), `$5` the limit. Columns: push
    /// id, title, device id, sent at, outcome, delivered at, opened at.
    var userPushes: String {
        sql(
            """
            SELECT t.push_id, p.title, d.device_id, t.sent_at_ms, t.outcome,
              (SELECT MIN(r.received_at_ms) FROM receipts r WHERE r.push_id = t.push_id AND r.event = 'delivered' AND r.device_id = d.device_id),
              (SELECT MIN(r.received_at_ms) FROM receipts r WHERE r.push_id = t.push_id AND r.event = 'opened' AND r.device_id = d.device_id)
            FROM devices d JOIN push_tokens t ON t.device_token = d.device_token LEFT JOIN pushes p ON p.push_id = t.push_id
            WHERE d.user_id = $1 AND (t.sent_at_ms < $2 OR (t.sent_at_ms = $2 AND (t.push_id\(byteOrder) < $3
              OR (t.push_id = $3 AND COALESCE(d.device_id, '')\(byteOrder) < $4))))
            ORDER BY t.sent_at_ms DESC, t.push_id\(byteOrder) DESC, COALESCE(d.device_id, '')\(byteOrder) DESC LIMIT $5
            """)
    }

    /// The latest send of one of the pushes to a user's or a device's devices: `$1` the push ids
    /// (a JSON array for SQLite, a text array for PostgreSQL), `$2` user, `$3` device id.
    var latestSend: String {
        let pushes = dialect == .sqlite ? "(SELECT value FROM json_each($1))" : "(SELECT unnest($1::text[]))"
        return sql(
            """
            SELECT t.push_id, t.sent_at_ms, d.device_id FROM devices d JOIN push_tokens t ON t.device_token = d.device_token
            WHERE (d.user_id = $2 OR d.device_id = $3) AND t.push_id IN \(pushes)
            ORDER BY t.sent_at_ms DESC LIMIT 1
            """)
    }

    /// Conversions per push: `$1` the push ids. Columns: push id, converters, conversions, value.
    var conversionTotals: String {
        let pushes = dialect == .sqlite ? "(SELECT value FROM json_each($1))" : "(SELECT unnest($1::text[]))"
        return sql(
            """
            SELECT push_id, COUNT(DISTINCT COALESCE(user_id, device_id)), COUNT(*), COALESCE(SUM(value), 0)
            FROM conversions WHERE push_id IN \(pushes) GROUP BY push_id
            """)
    }
}

/// The opaque cursors of the recipients' pages.
enum RecipientCursor {
    /// The cursor after `key` (a device id, or a token for `not_delivered`): base64url of it.
    static func encode(_ key: String) -> String {
        Data(key.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The key a cursor holds, `nil` when it is not one of ours.
    static func decode(_ cursor: String) -> String? {
        guard cursor.utf8.count <= 2_048 else { return nil }
        var text = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text), let key = String(data: data, encoding: .utf8) else { return nil }
        return key
    }
}
