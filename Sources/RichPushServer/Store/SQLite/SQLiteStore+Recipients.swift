import CSQLite
import Foundation
import RichPushCore

/// Who saw a push, users' histories, erasure and conversions in SQLite (`RecipientStore`, schema
/// version 10): reads on the reader pool (an export steps one statement, memory flat), writes in
/// one transaction under the write lock.
extension SQLiteStore: RecipientStore {
    /// Keeps recipients (this file).
    public func recipientStore() -> any RecipientStore { self }

    private static let queries = RecipientSQL(dialect: .sqlite)

    private static func jsonArray(_ values: [String]) -> SQLiteValue {
        .text(String(decoding: RichPushJSONValue.array(values.map(RichPushJSONValue.string)).jsonData(), as: UTF8.self))
    }

    /// See `RecipientStore.deviceCredential(deviceID:)`.
    public func deviceCredential(deviceID: String) throws -> DeviceCredential? {
        try readers.withConnection { db in
            let query = try db.prepared("SELECT device_id, device_secret, device_token, user_id FROM devices WHERE device_id = ?")
            try query.bind([.text(deviceID)])
            return try query.rows { s in
                DeviceCredential(deviceID: s.text(0) ?? "", secret: s.text(1) ?? "", token: s.text(2) ?? "", userID: s.text(3))
            }.first
        }
    }

    /// The statement of `query` (with or without its page bound), bound.
    private static func prepare(_ db: SQLiteConnection, _ query: RecipientQuery, limited: Bool) throws -> SQLiteStatement {
        let after = query.after.flatMap(RecipientCursor.decode) ?? ""
        switch query.state {
        case .delivered, .opened:
            let statement = try db.prepared(queries.reported(limited: limited))
            var values: [SQLiteValue] = [.text(query.pushID), .text(query.state.rawValue), .text(after)]
            if limited { values.append(.integer(query.limit)) }
            try statement.bind(values)
            return statement
        case .notDelivered:
            let statement = try db.prepared(queries.notDelivered(limited: limited))
            var values: [SQLiteValue] = [.text(query.pushID), .text(after)]
            if limited { values.append(.integer(query.limit)) }
            try statement.bind(values)
            return statement
        }
    }

    private static func recipient(_ s: SQLiteStatement, state: RecipientState) -> Recipient {
        let id = s.text(0) ?? ""
        switch state {
        case .delivered, .opened:
            return Recipient(deviceID: id, userID: s.text(3), platform: s.text(4), atMs: s.int(1) ?? 0, outcome: s.text(2), cursor: RecipientCursor.encode(id))
        case .notDelivered:
            return Recipient(
                deviceID: id, userID: s.text(3), platform: s.text(4), atMs: s.int(1) ?? 0, outcome: s.text(2),
                cursor: RecipientCursor.encode(s.text(5) ?? ""))
        }
    }

    /// See `RecipientStore.recipients(_:)`.
    public func recipients(_ query: RecipientQuery) throws -> RecipientPage {
        var bounded = query
        bounded.limit = max(1, query.limit) + 1
        let rows = try readers.withConnection { db in
            try Self.prepare(db, bounded, limited: true).rows { Self.recipient($0, state: query.state) }
        }
        let page = Array(rows.prefix(max(1, query.limit)))
        return RecipientPage(recipients: page, next: rows.count > page.count ? page.last?.cursor : nil)
    }

    /// See `RecipientStore.forEachRecipient(_:_:)`: one statement stepped row by row.
    @discardableResult
    public func forEachRecipient(_ query: RecipientQuery, _ body: (Recipient) throws -> Bool) throws -> Int {
        try readers.withConnection { db in
            try db.execute("BEGIN")
            defer { try? db.execute("COMMIT") }
            let statement = try Self.prepare(db, RecipientQuery(pushID: query.pushID, state: query.state), limited: false)
            defer { statement.reset() }
            var count = 0
            while try statement.step() {
                count += 1
                if try !body(Self.recipient(statement, state: query.state)) { break }
            }
            return count
        }
    }

    /// See `RecipientStore.userPushes(userID:before:limit:)`.
    public func userPushes(userID: String, before: String?, limit: Int) throws -> UserPushPage {
        let cursor = UserPushCursor(before)
        let rows = try readers.withConnection { db in
            let query = try db.prepared(Self.queries.userPushes)
            try query.bind([.text(userID), .integer(cursor.sentAtMs), .text(cursor.pushID), .text(cursor.deviceID), .integer(max(1, limit) + 1)])
            return try query.rows { s in
                UserPush(
                    pushID: s.text(0) ?? "", title: s.text(1), deviceID: s.text(2), sentAtMs: s.int(3) ?? 0, outcome: s.text(4), deliveredAtMs: s.int(5),
                    openedAtMs: s.int(6), cursor: UserPushCursor.encode(sentAtMs: s.int(3) ?? 0, pushID: s.text(0) ?? "", deviceID: s.text(2) ?? ""))
            }
        }
        let page = Array(rows.prefix(max(1, limit)))
        return UserPushPage(pushes: page, next: rows.count > page.count ? page.last?.cursor : nil)
    }

    /// See `RecipientStore.eraseUser(_:)`: one transaction.
    public func eraseUser(_ userID: String) throws -> UserErasure {
        try writeTransaction { db in
            let devices = try db.prepared("SELECT device_token, device_id FROM devices WHERE user_id = ?")
            try devices.bind([.text(userID)])
            let found = try devices.rows { ($0.text(0) ?? "", $0.text(1)) }
            let tokens = found.map(\.0), ids = found.compactMap(\.1)
            var erased = UserErasure()
            func run(_ sql: String, _ values: [SQLiteValue]) throws -> Int {
                let statement = try db.prepared(sql)
                try statement.bind(values)
                try statement.run()
                return db.changes
            }
            let tokenList = Self.jsonArray(tokens), idList = Self.jsonArray(ids)
            erased.receipts = try run("UPDATE receipts SET device_id = NULL WHERE device_id IN (SELECT value FROM json_each(?))", [idList])
            erased.conversions = try run(
                "DELETE FROM conversions WHERE user_id = ? OR device_id IN (SELECT value FROM json_each(?))", [.text(userID), idList])
            erased.sends = try run("DELETE FROM push_tokens WHERE device_token IN (SELECT value FROM json_each(?))", [tokenList])
            erased.campaignTargets = try run("DELETE FROM campaign_targets WHERE device_token IN (SELECT value FROM json_each(?))", [tokenList])
            erased.webhookEvents = try run("DELETE FROM webhook_outbox WHERE subject IN (SELECT value FROM json_each(?))", [tokenList])
            _ = try run("DELETE FROM device_tokens WHERE device_token IN (SELECT value FROM json_each(?))", [tokenList])
            _ = try run("DELETE FROM device_tags WHERE device_token IN (SELECT value FROM json_each(?))", [tokenList])
            // Stored answers of POST /v1/pushes (Idempotency-Key) that name the user or a token.
            for needle in [userID] + tokens {
                _ = try run("DELETE FROM idempotency_keys WHERE instr(response, ?) > 0", [.text(needle)])
            }
            erased.devices = try run("DELETE FROM devices WHERE user_id = ?", [.text(userID)])
            return erased
        }
    }

    /// See `RecipientStore.clearRecipientReferences(before:limit:)`.
    public func clearRecipientReferences(before beforeMs: Int, limit: Int) throws -> Int {
        let due = try reading { db in
            let query = try db.prepared(
                """
                SELECT (SELECT 1 FROM receipts WHERE device_id IS NOT NULL AND received_at_ms < ?1 LIMIT 1)
                  OR (SELECT 1 FROM conversions WHERE recorded_at_ms < ?1 AND (user_id IS NOT NULL OR device_id IS NOT NULL) LIMIT 1)
                """)
            try query.bind([.integer(beforeMs)])
            return try query.rows { ($0.int(0) ?? 0) != 0 }.first ?? false
        }
        guard due else { return 0 }
        return try writeTransaction { db in
            let receipts = try db.prepared(
                "UPDATE receipts SET device_id = NULL WHERE rowid IN (SELECT rowid FROM receipts WHERE device_id IS NOT NULL AND received_at_ms < ? LIMIT ?)")
            try receipts.bind([.integer(beforeMs), .integer(max(1, limit))])
            try receipts.run()
            var changed = db.changes
            let conversions = try db.prepared(
                """
                UPDATE conversions SET user_id = NULL, device_id = NULL WHERE rowid IN (
                  SELECT rowid FROM conversions WHERE recorded_at_ms < ? AND (user_id IS NOT NULL OR device_id IS NOT NULL) LIMIT ?)
                """)
            try conversions.bind([.integer(beforeMs), .integer(max(1, limit))])
            try conversions.run()
            changed += db.changes
            return changed
        }
    }

    /// See `RecipientStore.latestSend(pushIDs:userID:deviceID:)`.
    public func latestSend(pushIDs: [String], userID: String?, deviceID: String?) throws -> (pushID: String, sentAtMs: Int, deviceID: String?)? {
        guard !pushIDs.isEmpty, userID != nil || deviceID != nil else { return nil }
        return try readers.withConnection { db in
            let query = try db.prepared(Self.queries.latestSend)
            try query.bind([Self.jsonArray(pushIDs), .optional(userID), .optional(deviceID)])
            return try query.rows { ($0.text(0) ?? "", $0.int(1) ?? 0, $0.text(2)) }.first
        }
    }

    /// See `RecipientStore.recordConversion(_:)`.
    public func recordConversion(_ conversion: Conversion) throws -> Bool {
        try writeTransaction { db in
            let insert = try db.prepared(
                """
                INSERT INTO conversions (push_id, conversion_id, campaign_id, variant, device_id, user_id, value, occurred_at_ms, recorded_at_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """)
            try insert.bind([
                .text(conversion.pushID), .text(conversion.conversionID), .optional(conversion.campaignID), .optional(conversion.variant),
                .optional(conversion.deviceID), .optional(conversion.userID), conversion.value.map(SQLiteValue.real) ?? .null,
                .integer(conversion.occurredAtMs), .integer(conversion.recordedAtMs),
            ])
            try insert.run()
            return db.changes == 1
        }
    }

    /// See `RecipientStore.conversionTotals(pushIDs:)`.
    public func conversionTotals(pushIDs: [String]) throws -> [String: ConversionTotals] {
        guard !pushIDs.isEmpty else { return [:] }
        return try readers.withConnection { db in
            let query = try db.prepared(Self.queries.conversionTotals)
            try query.bind([Self.jsonArray(pushIDs)])
            var out: [String: ConversionTotals] = [:]
            for (id, totals) in try query.rows({
                ($0.text(0) ?? "", ConversionTotals(converted: $0.int(1) ?? 0, conversions: $0.int(2) ?? 0, value: $0.double(3) ?? 0))
            }) {
                out[id] = totals
            }
            return out
        }
    }
}

/// A user's history cursor: the last row's send time, push id and device id.
struct UserPushCursor: Sendable {
    var sentAtMs = Int.max
    var pushID = ""
    var deviceID = ""

    /// Reads a cursor (`nil` or not ours: the first page).
    init(_ cursor: String?) {
        guard let text = cursor.flatMap(RecipientCursor.decode) else { return }
        let parts = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let ms = Int(parts[0]) else { return }
        (sentAtMs, pushID, deviceID) = (ms, parts[1], parts[2])
    }

    /// The cursor after a row.
    static func encode(sentAtMs: Int, pushID: String, deviceID: String) -> String {
        RecipientCursor.encode("\(sentAtMs)\n\(pushID)\n\(deviceID)")
    }
}
