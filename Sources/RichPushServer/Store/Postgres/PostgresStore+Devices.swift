import Foundation
import RichPushCore

/// The device-token lifecycle in PostgreSQL (`DeviceStore`): registrations, unregistrations,
/// the tokens a send skips.
extension PostgresStore {
    // MARK: DeviceStore

    /// Upserts the registration (see `DeviceStore.registerDevice(_:)`).
    public func registerDevice(_ registration: DeviceRegistration) throws -> Bool {
        if let tags = registration.tags { return try registerDevice(registration, tags: tags) }
        return try pooled { db in
            try db.execute(
                """
                INSERT INTO devices AS d (device_token, provider, platform, user_id, app_version, registered_at_ms) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (device_token) DO UPDATE SET provider = excluded.provider, platform = excluded.platform,
                    user_id = excluded.user_id, app_version = excluded.app_version, registered_at_ms = excluded.registered_at_ms
                RETURNING (xmax = 0)
                """,
                [
                    registration.token, registration.provider, registration.platform, registration.userID, registration.appVersion,
                    String(registration.registeredAtMs),
                ]
            ).text(0, 0) == "t"
        }
    }

    /// Upserts the registration and replaces its tags, in one transaction.
    private func registerDevice(_ registration: DeviceRegistration, tags: [String]) throws -> Bool {
        var plain = registration
        plain.tags = nil
        return try pooled { db in
            try db.execute("BEGIN")
            do {
                let created =
                    try db.execute(
                        """
                        INSERT INTO devices AS d (device_token, provider, platform, user_id, app_version, registered_at_ms) VALUES ($1, $2, $3, $4, $5, $6)
                        ON CONFLICT (device_token) DO UPDATE SET provider = excluded.provider, platform = excluded.platform,
                            user_id = excluded.user_id, app_version = excluded.app_version, registered_at_ms = excluded.registered_at_ms
                        RETURNING (xmax = 0)
                        """,
                        [
                            plain.token, plain.provider, plain.platform, plain.userID, plain.appVersion, String(plain.registeredAtMs),
                        ]
                    ).text(0, 0) == "t"
                try db.execute("DELETE FROM device_tags WHERE device_token = $1", [plain.token])
                try db.execute(
                    "INSERT INTO device_tags (device_token, tag) SELECT $1, tag FROM unnest($2::text[]) AS t(tag) ON CONFLICT DO NOTHING",
                    [plain.token, PostgresArrayLiteral.text(tags)])
                try db.execute("COMMIT")
                return created
            } catch {
                if db.isConnected { _ = try? db.execute("ROLLBACK") }
                throw error
            }
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
