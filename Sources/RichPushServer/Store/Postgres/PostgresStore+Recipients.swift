import Foundation
import RichPushCore

/// Who saw a push, users' histories, erasure and conversions in PostgreSQL (`RecipientStore`,
/// schema version 10), as SQLite's (`RecipientSQL`); an export reads a cursor in batches of
/// `exportBatch` rows inside one read transaction (memory flat in the number of rows).
extension PostgresStore: RecipientStore {
    /// Keeps recipients (this file).
    public func recipientStore() -> any RecipientStore { self }

    private static let queries = RecipientSQL(dialect: .postgres)
    /// Rows per `FETCH` of an export.
    static let exportBatch = 5_000

    /// See `RecipientStore.deviceCredential(deviceID:)`.
    public func deviceCredential(deviceID: String) throws -> DeviceCredential? {
        try pooled(readOnly: true) { db in
            let result = try db.execute("SELECT device_id, device_secret, device_token, user_id FROM devices WHERE device_id = $1", [deviceID])
            guard result.count == 1 else { return nil }
            return DeviceCredential(
                deviceID: result.text(0, 0) ?? "", secret: result.text(0, 1) ?? "", token: result.text(0, 2) ?? "", userID: result.text(0, 3))
        }
    }

    /// The SQL and parameters of `query`.
    private static func statement(_ query: RecipientQuery, limited: Bool) -> (String, [String?]) {
        let after = query.after.flatMap(RecipientCursor.decode) ?? ""
        switch query.state {
        case .delivered, .opened:
            return (queries.reported(limited: limited), [query.pushID, query.state.rawValue, after] + (limited ? [String(query.limit)] : []))
        case .notDelivered:
            return (queries.notDelivered(limited: limited), [query.pushID, after] + (limited ? [String(query.limit)] : []))
        }
    }

    private static func recipients(_ result: PostgresResult, state: RecipientState) -> [Recipient] {
        result.rows { row in
            let id = result.text(row, 0) ?? ""
            let cursor = state == .notDelivered ? RecipientCursor.encode(result.text(row, 5) ?? "") : RecipientCursor.encode(id)
            return Recipient(
                deviceID: id, userID: result.text(row, 3), platform: result.text(row, 4), atMs: result.int(row, 1) ?? 0, outcome: result.text(row, 2),
                cursor: cursor)
        }
    }

    /// See `RecipientStore.recipients(_:)`.
    public func recipients(_ query: RecipientQuery) throws -> RecipientPage {
        var bounded = query
        bounded.limit = max(1, query.limit) + 1
        let (sql, parameters) = Self.statement(bounded, limited: true)
        let rows = try pooled(readOnly: true) { db in Self.recipients(try db.execute(sql, parameters), state: query.state) }
        let page = Array(rows.prefix(max(1, query.limit)))
        return RecipientPage(recipients: page, next: rows.count > page.count ? page.last?.cursor : nil)
    }

    /// See `RecipientStore.forEachRecipient(_:_:)`: a cursor fetched `exportBatch` rows at a time.
    @discardableResult
    public func forEachRecipient(_ query: RecipientQuery, _ body: (Recipient) throws -> Bool) throws -> Int {
        let (sql, parameters) = Self.statement(RecipientQuery(pushID: query.pushID, state: query.state), limited: false)
        // Not repeated after a lost connection: the rows handed over so far are out already.
        return try pooled { db in
            try Self.inTransaction(db) {
                try db.execute("DECLARE richpush_recipients NO SCROLL CURSOR FOR " + sql, parameters)
                var count = 0
                fetching: while true {
                    let batch = Self.recipients(try db.execute("FETCH \(Self.exportBatch) FROM richpush_recipients"), state: query.state)
                    for recipient in batch {
                        count += 1
                        if try !body(recipient) { break fetching }
                    }
                    if batch.count < Self.exportBatch { break }
                }
                try db.execute("CLOSE richpush_recipients")
                return count
            }
        }
    }

    /// See `RecipientStore.userPushes(userID:before:limit:)`.
    public func userPushes(userID: String, before: String?, limit: Int) throws -> UserPushPage {
        let cursor = UserPushCursor(before)
        let rows = try pooled(readOnly: true) { db in
            let result = try db.execute(
                Self.queries.userPushes, [userID, String(cursor.sentAtMs), cursor.pushID, cursor.deviceID, String(max(1, limit) + 1)])
            return result.rows { r in
                UserPush(
                    pushID: result.text(r, 0) ?? "", title: result.text(r, 1), deviceID: result.text(r, 2), sentAtMs: result.int(r, 3) ?? 0,
                    outcome: result.text(r, 4), deliveredAtMs: result.int(r, 5), openedAtMs: result.int(r, 6),
                    cursor: UserPushCursor.encode(sentAtMs: result.int(r, 3) ?? 0, pushID: result.text(r, 0) ?? "", deviceID: result.text(r, 2) ?? ""))
            }
        }
        let page = Array(rows.prefix(max(1, limit)))
        return UserPushPage(pushes: page, next: rows.count > page.count ? page.last?.cursor : nil)
    }

    /// See `RecipientStore.eraseUser(_:)`: one transaction.
    public func eraseUser(_ userID: String) throws -> UserErasure {
        try pooled { db in
            try Self.inTransaction(db) {
                // The user's devices, locked until the end: a registration of theirs meanwhile waits.
                let found = try db.execute("SELECT device_token, device_id FROM devices WHERE user_id = $1 ORDER BY device_token FOR UPDATE", [userID])
                let tokens = found.rows { found.text($0, 0) ?? "" }, ids = found.rows { found.text($0, 1) }.compactMap { $0 }
                let tokenList = PostgresArrayLiteral.text(tokens), idList = PostgresArrayLiteral.text(ids)
                func count(_ sql: String, _ parameters: [String?]) throws -> Int {
                    Int(try db.execute(sql, parameters).commandStatus.split(separator: " ").last ?? "") ?? 0
                }
                var erased = UserErasure()
                erased.receipts = try count("UPDATE receipts SET device_id = NULL WHERE device_id = ANY($1::text[])", [idList])
                erased.conversions = try count("DELETE FROM conversions WHERE user_id = $1 OR device_id = ANY($2::text[])", [userID, idList])
                erased.sends = try count("DELETE FROM push_tokens WHERE device_token = ANY($1::text[])", [tokenList])
                erased.campaignTargets = try count("DELETE FROM campaign_targets WHERE device_token = ANY($1::text[])", [tokenList])
                erased.webhookEvents = try count("DELETE FROM webhook_outbox WHERE subject = ANY($1::text[])", [tokenList])
                _ = try count("DELETE FROM device_tokens WHERE device_token = ANY($1::text[])", [tokenList])
                _ = try count("DELETE FROM device_tags WHERE device_token = ANY($1::text[])", [tokenList])
                // Stored answers of POST /v1/pushes (Idempotency-Key) that name the user or a token.
                _ = try count(
                    "DELETE FROM idempotency_keys WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS n(needle) WHERE strpos(response, n.needle) > 0)",
                    [PostgresArrayLiteral.text([userID] + tokens)])
                erased.devices = try count("DELETE FROM devices WHERE user_id = $1", [userID])
                return erased
            }
        }
    }

    /// See `RecipientStore.clearRecipientReferences(before:limit:)`: two bounded statements.
    public func clearRecipientReferences(before beforeMs: Int, limit: Int) throws -> Int {
        try pooled { db in
            let receipts = try db.execute(
                """
                UPDATE receipts SET device_id = NULL WHERE ctid IN (
                  SELECT ctid FROM receipts WHERE device_id IS NOT NULL AND received_at_ms < $1::bigint LIMIT $2::bigint)
                """, [String(beforeMs), String(max(1, limit))])
            let conversions = try db.execute(
                """
                UPDATE conversions SET user_id = NULL, device_id = NULL WHERE ctid IN (
                  SELECT ctid FROM conversions WHERE recorded_at_ms < $1::bigint AND (user_id IS NOT NULL OR device_id IS NOT NULL) LIMIT $2::bigint)
                """, [String(beforeMs), String(max(1, limit))])
            return [receipts, conversions].reduce(0) { $0 + (Int($1.commandStatus.split(separator: " ").last ?? "") ?? 0) }
        }
    }

    /// See `RecipientStore.latestSend(pushIDs:userID:deviceID:)`.
    public func latestSend(pushIDs: [String], userID: String?, deviceID: String?) throws -> (pushID: String, sentAtMs: Int, deviceID: String?)? {
        guard !pushIDs.isEmpty, userID != nil || deviceID != nil else { return nil }
        return try pooled(readOnly: true) { db in
            let result = try db.execute(Self.queries.latestSend, [PostgresArrayLiteral.text(pushIDs), userID, deviceID])
            guard result.count == 1 else { return nil }
            return (result.text(0, 0) ?? "", result.int(0, 1) ?? 0, result.text(0, 2))
        }
    }

    /// See `RecipientStore.recordConversion(_:)`.
    public func recordConversion(_ conversion: Conversion) throws -> Bool {
        try pooled { db in
            try db.execute(
                """
                INSERT INTO conversions (push_id, conversion_id, campaign_id, variant, device_id, user_id, value, occurred_at_ms, recorded_at_ms)
                VALUES ($1, $2, $3, $4, $5, $6, $7::double precision, $8::bigint, $9::bigint) ON CONFLICT DO NOTHING RETURNING 1
                """,
                [
                    conversion.pushID, conversion.conversionID, conversion.campaignID, conversion.variant, conversion.deviceID, conversion.userID,
                    conversion.value.map { String($0) }, String(conversion.occurredAtMs), String(conversion.recordedAtMs),
                ]
            ).count == 1
        }
    }

    /// See `RecipientStore.conversionTotals(pushIDs:)`.
    public func conversionTotals(pushIDs: [String]) throws -> [String: ConversionTotals] {
        guard !pushIDs.isEmpty else { return [:] }
        return try pooled(readOnly: true) { db in
            let result = try db.execute(Self.queries.conversionTotals, [PostgresArrayLiteral.text(pushIDs)])
            var out: [String: ConversionTotals] = [:]
            for row in 0..<result.count {
                out[result.text(row, 0) ?? ""] = ConversionTotals(
                    converted: result.int(row, 1) ?? 0, conversions: result.int(row, 2) ?? 0, value: Double(result.text(row, 3) ?? "") ?? 0)
            }
            return out
        }
    }
}
