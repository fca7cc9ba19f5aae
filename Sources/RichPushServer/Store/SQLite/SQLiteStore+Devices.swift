import CSQLite
import Foundation
import RichPushCore

/// The device-token lifecycle in SQLite (`DeviceStore`): registrations, unregistrations, the
/// tokens a send skips.
extension SQLiteStore {
    // MARK: DeviceStore

    /// Upserts the registration (see `DeviceStore.registerDevice(_:)`).
    public func registerDevice(_ registration: DeviceRegistration) throws -> Bool {
        try registerDevices([registration])[0].created
    }

    /// Upserts the registrations in one transaction (see `DeviceStore.registerDevices(_:)`).
    public func registerDevices(_ registrations: [DeviceRegistration]) throws -> [DeviceRegistered] {
        guard !registrations.isEmpty else { return [] }
        return try writeTransaction { _ in
            let existing = try writer.prepared("SELECT device_id, device_secret, recipient_receipts FROM devices WHERE device_token = ?")
            let upsert = try writer.prepared(
                """
                INSERT INTO devices (device_token, provider, platform, user_id, app_version, registered_at_ms, device_id, device_secret, recipient_receipts)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (device_token) DO UPDATE SET provider = excluded.provider, platform = excluded.platform,
                  user_id = excluded.user_id, app_version = excluded.app_version, registered_at_ms = excluded.registered_at_ms,
                  device_id = excluded.device_id, device_secret = excluded.device_secret, recipient_receipts = excluded.recipient_receipts
                """
            )
            var out: [DeviceRegistered] = []
            out.reserveCapacity(registrations.count)
            for registration in registrations {
                existing.reset()
                try existing.bind([.text(registration.token)])
                let found = try existing.rows { ($0.text(0), $0.text(1), ($0.int(2) ?? 0) != 0) }.first
                // A device keeps its credential while registered; one registered before version
                // 10 (no id yet) gets one now.
                let fresh = registration.credential ?? DeviceRegistered.newCredential()
                let id = found?.0 ?? fresh.deviceID, secret = found?.0 == nil ? fresh.secret : (found?.1 ?? fresh.secret)
                let recipients = registration.recipientReceipts ?? found?.2 ?? false
                upsert.reset()
                try upsert.bind([
                    .text(registration.token), .text(registration.provider), .text(registration.platform), .optional(registration.userID),
                    .optional(registration.appVersion), .integer(registration.registeredAtMs), .text(id), .text(secret),
                    .integer(recipients ? 1 : 0),
                ])
                try upsert.run()
                if let tags = registration.tags { try Self.replaceTags(writer, token: registration.token, tags: tags) }
                out.append(DeviceRegistered(created: found == nil, deviceID: id, deviceSecret: secret, recipientReceipts: recipients))
            }
            return out
        }
    }

    /// Deletes the registration and marks the token `deleted` (see `DeviceStore.unregisterDevice(_:atMs:)`).
    public func unregisterDevice(_ token: String, atMs: Int) throws -> Bool {
        try writeTransaction { _ in
            let delete = try writer.prepared("DELETE FROM devices WHERE device_token = ?")
            try delete.bind([.text(token)])
            try delete.run()
            let existed = writer.changes > 0
            let mark = try writer.prepared(
                """
                INSERT INTO device_tokens (device_token, state, reason, since_ms, updated_at_ms) VALUES (?, 'deleted', 'deleted by the app', ?, ?)
                ON CONFLICT (device_token) DO UPDATE SET state = excluded.state, reason = excluded.reason,
                  since_ms = excluded.since_ms, updated_at_ms = excluded.updated_at_ms
                """
            )
            try mark.bind([.text(token), .integer(atMs), .integer(atMs)])
            try mark.run()
            return existed
        }
    }

    /// The users' registrations, newest first (see `DeviceStore.devices(ofUsers:limit:)`).
    public func devices(ofUsers userIDs: [String], limit: Int) throws -> [DeviceRegistration] {
        try reading { db in
            let query = try db.prepared(
                "SELECT device_token, provider, platform, user_id, app_version, registered_at_ms FROM devices WHERE user_id = ? ORDER BY registered_at_ms DESC LIMIT ?"
            )
            var out: [DeviceRegistration] = []
            for user in Set(userIDs).sorted() where out.count < limit {
                query.reset()
                try query.bind([.text(user), .integer(limit - out.count)])
                out += try query.rows(Self.registration)
            }
            return out
        }
    }

    /// One registration (see `DeviceStore.device(_:)`).
    public func device(_ token: String) throws -> DeviceRegistration? {
        try readers.withConnection { db in
            let query = try db.prepared(
                "SELECT device_token, provider, platform, user_id, app_version, registered_at_ms FROM devices WHERE device_token = ?"
            )
            try query.bind([.text(token)])
            return try query.rows(Self.registration).first
        }
    }

    private static func registration(_ s: SQLiteStatement) -> DeviceRegistration {
        DeviceRegistration(
            token: s.text(0) ?? "", provider: s.text(1) ?? "", platform: s.text(2) ?? "", userID: s.text(3), appVersion: s.text(4),
            registeredAtMs: s.int(5) ?? 0)
    }

    /// Tokens marked inactive, bad or deleted and not registered since (see
    /// `DeviceStore.skippedTokens(among:)`).
    public func skippedTokens(among tokens: [String]) throws -> [String: TokenSkip] {
        try reading { db in
            let query = try db.prepared(
                """
                SELECT t.state, t.reason, COALESCE(t.since_ms, t.updated_at_ms), d.registered_at_ms
                FROM device_tokens t LEFT JOIN devices d ON d.device_token = t.device_token WHERE t.device_token = ?
                """
            )
            var out: [String: TokenSkip] = [:]
            for token in Set(tokens) {
                query.reset()
                try query.bind([.text(token)])
                guard let (state, reason, since, registered) = try query.rows({ ($0.text(0) ?? "", $0.text(1), $0.int(2) ?? 0, $0.int(3)) }).first else {
                    continue
                }
                // Registered again after the provider's verdict (Apple: "unless it registered again later").
                if let registered, registered > since { continue }
                out[token] = TokenSkip(state: PushSendRecord.TokenState(rawValue: state), reason: reason, sinceMs: since)
            }
            return out
        }
    }
}
