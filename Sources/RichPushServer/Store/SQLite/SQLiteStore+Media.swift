import CSQLite
import Foundation
import RichPushCore

/// The media edge's files in SQLite (`MediaStore`, schema version 6):
/// - `media_objects`: one row per SHA-256 (the file's bytes as a BLOB, extension, type, size,
///   when stored; indexed by when, for eviction oldest first).
/// - `push_media`: per push and original media URL what the send-time check found and did; a
///   row naming a `sha256` makes that file referenced, never evicted.
extension SQLiteStore {
    /// Version 6: the media edge's tables. Runs inside `migrate`'s transaction.
    static func migrateToVersion6(_ db: SQLiteConnection) throws {
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS media_objects (
                sha256 TEXT PRIMARY KEY,
                extension TEXT NOT NULL,
                content_type TEXT NOT NULL,
                byte_count INTEGER NOT NULL,
                bytes BLOB NOT NULL,
                stored_at_ms INTEGER NOT NULL
            );
            CREATE INDEX IF NOT EXISTS media_objects_stored ON media_objects (stored_at_ms, sha256);
            CREATE TABLE IF NOT EXISTS push_media (
                push_id TEXT NOT NULL,
                original_url TEXT NOT NULL,
                reason TEXT,
                action TEXT NOT NULL,
                original_type TEXT,
                original_bytes INTEGER,
                sha256 TEXT,
                optimized_type TEXT,
                optimized_bytes INTEGER,
                sent_url TEXT,
                recorded_at_ms INTEGER NOT NULL,
                PRIMARY KEY (push_id, original_url)
            );
            CREATE INDEX IF NOT EXISTS push_media_sha256 ON push_media (sha256) WHERE sha256 IS NOT NULL;
            """)
    }

    // MARK: MediaStore

    /// Stores the file and evicts within the bound (see `MediaStore.storeMedia(_:budgetBytes:)`).
    public func storeMedia(_ object: MediaObject, budgetBytes: Int) throws -> MediaStoring {
        writeLock.lock()
        defer { writeLock.unlock() }
        try ensureOpen()
        try writer.execute("BEGIN IMMEDIATE")
        let outcome: MediaStoring
        do {
            outcome = try Self.storeMedia(object, budgetBytes: budgetBytes, in: writer)
            if case .full = outcome {
                try writer.execute("ROLLBACK")
            } else {
                try writer.execute("COMMIT")
            }
        } catch {
            try? writer.execute("ROLLBACK")
            throw error
        }
        try syncCommitted()
        return outcome
    }

    private static func storeMedia(_ object: MediaObject, budgetBytes: Int, in db: SQLiteConnection) throws -> MediaStoring {
        let insert = try db.prepared(
            """
            INSERT INTO media_objects (sha256, extension, content_type, byte_count, bytes, stored_at_ms) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (sha256) DO UPDATE SET stored_at_ms = max(media_objects.stored_at_ms, excluded.stored_at_ms)
            """)
        try insert.bind([
            .text(object.sha256), .text(object.fileExtension), .text(object.contentType), .integer(object.bytes.count), .blob(object.bytes),
            .integer(object.storedAtMs),
        ])
        try insert.run()
        var total = try db.prepared("SELECT COALESCE(SUM(byte_count), 0) FROM media_objects").rows { $0.int(0) ?? 0 }.first ?? 0
        guard total > budgetBytes else { return .stored(evicted: []) }
        // A record older than the retention no longer holds its copy: no device can still get that push.
        let cutoff = object.storedAtMs - MediaObject.referenceRetentionMs
        let candidates = try db.prepared(
            """
            SELECT sha256, byte_count FROM media_objects m
            WHERE sha256 <> ? AND NOT EXISTS (SELECT 1 FROM push_media p WHERE p.sha256 = m.sha256 AND p.recorded_at_ms >= ?)
            ORDER BY stored_at_ms, sha256
            """)
        try candidates.bind([.text(object.sha256), .integer(cutoff)])
        let rows = try candidates.rows { ($0.text(0) ?? "", $0.int(1) ?? 0) }
        var evicted: [String] = []
        let delete = try db.prepared("DELETE FROM media_objects WHERE sha256 = ?")
        for (sha, bytes) in rows where total > budgetBytes {
            try delete.bind([.text(sha)])
            try delete.run()
            total -= bytes
            evicted.append(sha)
        }
        guard total <= budgetBytes else {
            let query = try db.prepared(
                "SELECT COALESCE(SUM(byte_count), 0) FROM media_objects m WHERE EXISTS (SELECT 1 FROM push_media p WHERE p.sha256 = m.sha256 AND p.recorded_at_ms >= ?)"
            )
            try query.bind([.integer(cutoff)])
            let referenced = try query.rows { $0.int(0) ?? 0 }.first ?? 0
            return .full(referencedBytes: referenced)
        }
        return .stored(evicted: evicted)
    }

    /// A stored file (see `MediaStore.media(_:)`).
    public func media(_ sha256: String) throws -> MediaObject? {
        try readers.withConnection { db in
            let query = try db.prepared("SELECT sha256, extension, content_type, bytes, stored_at_ms FROM media_objects WHERE sha256 = ?")
            try query.bind([.text(sha256)])
            return try query.rows {
                MediaObject(
                    sha256: $0.text(0) ?? "", fileExtension: $0.text(1) ?? "", contentType: $0.text(2) ?? "", bytes: $0.data(3) ?? Data(),
                    storedAtMs: $0.int(4) ?? 0)
            }.first
        }
    }

    /// Records one URL's check (see `MediaStore.recordMedia(_:)`).
    public func recordMedia(_ record: PushMediaRecord) throws {
        writeLock.lock()
        defer { writeLock.unlock() }
        try ensureOpen()
        try upsertMedia(record)
        try syncCommitted()
    }

    /// Records several URLs' checks and their webhook deliveries in one transaction (see
    /// `MediaStore.recordMedia(_:webhooks:)`); durable on return.
    public func recordMedia(_ records: [PushMediaRecord], webhooks deliveries: [WebhookDelivery]) throws {
        try writeTransaction { _ in
            for record in records { try upsertMedia(record) }
            try insertWebhookDeliveries(deliveries)
        }
    }

    /// Writes one `push_media` row (the caller holds `writeLock`).
    private func upsertMedia(_ record: PushMediaRecord) throws {
        let upsert = try writer.prepared(
            """
            INSERT INTO push_media (push_id, original_url, reason, action, original_type, original_bytes, sha256, optimized_type,
                                    optimized_bytes, sent_url, recorded_at_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (push_id, original_url) DO UPDATE SET reason = excluded.reason, action = excluded.action,
              original_type = excluded.original_type, original_bytes = excluded.original_bytes, sha256 = excluded.sha256,
              optimized_type = excluded.optimized_type, optimized_bytes = excluded.optimized_bytes, sent_url = excluded.sent_url,
              recorded_at_ms = excluded.recorded_at_ms
            """)
        try upsert.bind([
            .text(record.pushID), .text(record.originalURL), .optional(record.reason), .text(record.action), .optional(record.originalType),
            .optional(record.originalBytes), .optional(record.sha256), .optional(record.optimizedType), .optional(record.optimizedBytes),
            .optional(record.sentURL), .integer(record.recordedAtMs),
        ])
        try upsert.run()
    }

    /// One push's media records (see `MediaStore.pushMedia(_:)`).
    public func pushMedia(_ pushID: String) throws -> [PushMediaRecord] {
        try readers.withConnection { db in
            let query = try db.prepared(
                """
                SELECT push_id, original_url, reason, action, original_type, original_bytes, sha256, optimized_type, optimized_bytes,
                       sent_url, recorded_at_ms FROM push_media WHERE push_id = ? ORDER BY original_url
                """)
            try query.bind([.text(pushID)])
            return try query.rows {
                PushMediaRecord(
                    pushID: $0.text(0) ?? "", originalURL: $0.text(1) ?? "", reason: $0.text(2), action: $0.text(3) ?? "",
                    originalType: $0.text(4), originalBytes: $0.int(5), sha256: $0.text(6), optimizedType: $0.text(7),
                    optimizedBytes: $0.int(8), sentURL: $0.text(9), recordedAtMs: $0.int(10) ?? 0)
            }
        }
    }

    /// The media check's counts (see `MediaStore.mediaCheckTotals(fromMs:toMs:)`).
    public func mediaCheckTotals(fromMs: Int?, toMs: Int?) throws -> MediaCheckTotals {
        try readers.withConnection { db in
            let query = try db.prepared(
                """
                SELECT reason, action, COUNT(*) FROM push_media WHERE recorded_at_ms >= ? AND recorded_at_ms < ?
                GROUP BY reason, action
                """)
            try query.bind([.integer(fromMs ?? Int(Int64.min)), .integer(toMs ?? Int(Int64.max))])
            return MediaCheckTotals(rows: try query.rows { MediaCheckTotals.Row(reason: $0.text(0), action: $0.text(1) ?? "", count: $0.int(2) ?? 0) })
        }
    }

    /// The edge's bytes and files (see `MediaStore.mediaUsage()`).
    public func mediaUsage() throws -> (bytes: Int, files: Int) {
        try readers.withConnection { db in
            try db.prepared("SELECT COALESCE(SUM(byte_count), 0), COUNT(*) FROM media_objects").rows { ($0.int(0) ?? 0, $0.int(1) ?? 0) }.first
                ?? (0, 0)
        }
    }
}
