import Foundation
import RichPushCore

/// The device-token lifecycle in PostgreSQL (`DeviceStore`): registrations, unregistrations,
/// the tokens a send skips.
extension PostgresStore {
    // MARK: DeviceStore

    /// Upserts the registration (see `DeviceStore.registerDevice(_:)`).
    public func registerDevice(_ registration: DeviceRegistration) throws -> Bool {
        try registerDevices([registration])[0].created
    }

    /// Upserts the registrations in one transaction, one statement for the rows and one for the
    /// tags (see `DeviceStore.registerDevices(_:)`). A token given twice: the last registration's
    /// values are stored; every occurrence answers with the device's credential, and only the
    /// first with `created`.
    public func registerDevices(_ registrations: [DeviceRegistration]) throws -> [DeviceRegistered] {
        guard !registrations.isEmpty else { return [] }
        // The last occurrence of each token is what is stored (in token order: rows locked in one order).
        var last: [String: Int] = [:]
        for (index, registration) in registrations.enumerated() { last[registration.token] = index }
        let rows = last.values.sorted { registrations[$0].token < registrations[$1].token }.map { registrations[$0] }
        let credentials = rows.map { $0.credential ?? DeviceRegistered.newCredential() }
        let tagged = rows.filter { $0.tags != nil }
        let tagPairs = tagged.flatMap { r in (r.tags ?? []).map { (r.token, $0) } }
        let stored: [String: (created: Bool, id: String, secret: String, recipients: Bool)] = try pooled { db in
            // 10,000 rows with their indexes: longer than the sessions' 2 s statement bound on a
            // loaded database; this transaction alone gets 30 s.
            db.unbounded = true
            defer { db.unbounded = false }
            return try Self.inTransaction(db) {
                try db.execute("SET LOCAL statement_timeout = '30s'; SET LOCAL lock_timeout = '10s'")
                var out: [String: (created: Bool, id: String, secret: String, recipients: Bool)] = [:]
                // Rows that give recipient_receipts set it; the others keep what was registered.
                for setsRecipients in [true, false] {
                    let part = rows.indices.filter { (rows[$0].recipientReceipts != nil) == setsRecipients }
                    guard !part.isEmpty else { continue }
                    let recipients = setsRecipients ? "excluded.recipient_receipts" : "d.recipient_receipts"
                    let result = try db.execute(
                        """
                        INSERT INTO devices AS d (device_token, provider, platform, user_id, app_version, registered_at_ms, device_id, device_secret,
                            recipient_receipts)
                        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::boolean[])
                        ORDER BY 1
                        ON CONFLICT (device_token) DO UPDATE SET provider = excluded.provider, platform = excluded.platform,
                            user_id = excluded.user_id, app_version = excluded.app_version, registered_at_ms = excluded.registered_at_ms,
                            device_id = COALESCE(d.device_id, excluded.device_id),
                            device_secret = CASE WHEN d.device_id IS NULL THEN excluded.device_secret ELSE d.device_secret END,
                            recipient_receipts = \(recipients)
                        RETURNING d.device_token, (xmax = 0), d.device_id, d.device_secret, d.recipient_receipts
                        """,
                        [
                            PostgresArrayLiteral.text(part.map { rows[$0].token }), PostgresArrayLiteral.text(part.map { rows[$0].provider }),
                            PostgresArrayLiteral.text(part.map { rows[$0].platform }), PostgresArrayLiteral.text(part.map { rows[$0].userID }),
                            PostgresArrayLiteral.text(part.map { rows[$0].appVersion }),
                            PostgresArrayLiteral.integers(part.map { rows[$0].registeredAtMs }),
                            PostgresArrayLiteral.text(part.map { credentials[$0].deviceID }), PostgresArrayLiteral.text(part.map { credentials[$0].secret }),
                            PostgresArrayLiteral.text(part.map { (rows[$0].recipientReceipts ?? false) ? "true" : "false" }),
                        ])
                    for row in 0..<result.count {
                        out[result.text(row, 0) ?? ""] = (
                            result.text(row, 1) == "t", result.text(row, 2) ?? "", result.text(row, 3) ?? "", result.text(row, 4) == "t"
                        )
                    }
                }
                if !tagged.isEmpty {
                    try db.execute("DELETE FROM device_tags WHERE device_token = ANY($1::text[])", [PostgresArrayLiteral.text(tagged.map(\.token))])
                    try db.execute(
                        "INSERT INTO device_tags (device_token, tag) SELECT * FROM unnest($1::text[], $2::text[]) ORDER BY 1, 2 ON CONFLICT DO NOTHING",
                        [PostgresArrayLiteral.text(tagPairs.map(\.0)), PostgresArrayLiteral.text(tagPairs.map(\.1))])
                }
                return out
            }
        }
        var seen = Set<String>()
        return registrations.map { registration in
            let row = stored[registration.token] ?? (false, "", "", false)
            let first = seen.insert(registration.token).inserted
            return DeviceRegistered(created: row.created && first, deviceID: row.id, deviceSecret: row.secret, recipientReceipts: row.recipients)
        }
    }

    /// Deletes the registration and marks the token `deleted` (see `DeviceStore.unregisterDevice(_:atMs:)`).
    public func unregisterDevice(_ token: String, atMs: Int) throws -> Bool {
        try pooled { db in
            try db.execute(
                """
                WITH gone AS (
                    DELETE FROM devices WHERE device_token = $1 RETURNING 1
                ), marked AS (
                    INSERT INTO device_tokens AS d (device_token, state, reason, since_ms, updated_at_ms)
                    VALUES ($1, 'deleted', 'deleted by the app', $2, $2)
                    ON CONFLICT (device_token) DO UPDATE SET state = excluded.state, reason = excluded.reason,
                        since_ms = excluded.since_ms, updated_at_ms = excluded.updated_at_ms
                )
                SELECT count(*) FROM gone
                """,
                [token, String(atMs)]
            ).int(0, 0) == 1
        }
    }

    /// The users' registrations, by user id (bytes) then newest first, as SQLite orders them
    /// (see `DeviceStore.devices(ofUsers:limit:)`).
    public func devices(ofUsers userIDs: [String], limit: Int) throws -> [DeviceRegistration] {
        guard !userIDs.isEmpty, limit > 0 else { return [] }
        return try pooled(readOnly: true) { db in
            let result = try db.execute(
                """
                SELECT device_token, provider, platform, user_id, app_version, registered_at_ms FROM devices
                WHERE user_id = ANY($1::text[]) ORDER BY user_id COLLATE "C", registered_at_ms DESC, device_token COLLATE "C" LIMIT $2
                """,
                [PostgresArrayLiteral.text(Array(Set(userIDs)).sorted()), String(limit)])
            return result.rows { Self.registration(result, $0) }
        }
    }

    /// One registration (see `DeviceStore.device(_:)`).
    public func device(_ token: String) throws -> DeviceRegistration? {
        try pooled(readOnly: true) { db in
            let result = try db.execute(
                "SELECT device_token, provider, platform, user_id, app_version, registered_at_ms FROM devices WHERE device_token = $1", [token])
            return result.count > 0 ? Self.registration(result, 0) : nil
        }
    }

    private static func registration(_ result: PostgresResult, _ row: Int) -> DeviceRegistration {
        DeviceRegistration(
            token: result.text(row, 0) ?? "", provider: result.text(row, 1) ?? "", platform: result.text(row, 2) ?? "", userID: result.text(row, 3),
            appVersion: result.text(row, 4), registeredAtMs: result.int(row, 5) ?? 0)
    }

    /// Tokens marked inactive, bad or deleted and not registered since (see
    /// `DeviceStore.skippedTokens(among:)`).
    public func skippedTokens(among tokens: [String]) throws -> [String: TokenSkip] {
        guard !tokens.isEmpty else { return [:] }
        return try pooled(readOnly: true) { db in
            let result = try db.execute(
                """
                SELECT t.device_token, t.state, t.reason, COALESCE(t.since_ms, t.updated_at_ms), d.registered_at_ms
                FROM device_tokens t LEFT JOIN devices d ON d.device_token = t.device_token
                WHERE t.device_token = ANY($1::text[])
                """,
                [PostgresArrayLiteral.text(Array(Set(tokens)).sorted())])
            var out: [String: TokenSkip] = [:]
            for row in 0..<result.count {
                let since = result.int(row, 3) ?? 0
                // Registered again after the provider's verdict (Apple: "unless it registered again later").
                if let registered = result.int(row, 4), registered > since { continue }
                out[result.text(row, 0) ?? ""] = TokenSkip(
                    state: PushSendRecord.TokenState(rawValue: result.text(row, 1) ?? ""), reason: result.text(row, 2), sinceMs: since)
            }
            return out
        }
    }
}
