import Foundation
import RichPushCore

/// The media edge's files in PostgreSQL (`MediaStore`, schema version 6): the SQLite store's
/// `media_objects` (bytes as `bytea`) and `push_media`, so every instance on one database serves
/// the same bytes. Storing and evicting take a transaction-level advisory lock of their own, so
/// two instances storing at once neither both evict for the same room nor overshoot the bound.
extension PostgresStore {
    /// The advisory lock key of media storing ("richpush" + 1).
    static let mediaLockKey: Int64 = PostgresSchema.advisoryLockKey + 1

    /// Version 6: the media edge's tables (`IF NOT EXISTS`: a hand-made schema may have them).
    static let migrateToVersion6 = """
        CREATE TABLE IF NOT EXISTS media_objects (
            sha256 text PRIMARY KEY,
            extension text NOT NULL,
            content_type text NOT NULL,
            byte_count bigint NOT NULL,
            bytes bytea NOT NULL,
            stored_at_ms bigint NOT NULL
        );
        CREATE INDEX IF NOT EXISTS media_objects_stored ON media_objects (stored_at_ms, sha256);
        CREATE TABLE IF NOT EXISTS push_media (
            push_id text NOT NULL,
            original_url text NOT NULL,
            reason text,
            action text NOT NULL,
            original_type text,
            original_bytes bigint,
            sha256 text,
            optimized_type text,
            optimized_bytes bigint,
            sent_url text,
            recorded_at_ms bigint NOT NULL,
            PRIMARY KEY (push_id, original_url)
        );
        CREATE INDEX IF NOT EXISTS push_media_sha256 ON push_media (sha256) WHERE sha256 IS NOT NULL;
        UPDATE richpush_meta SET value = '6' WHERE key = 'schema_version';
        """

    // MARK: MediaStore

    /// Stores the file and evicts within the bound (see `MediaStore.storeMedia(_:budgetBytes:)`).
    public func storeMedia(_ object: MediaObject, budgetBytes: Int) throws -> MediaStoring {
        try write { db in
            try db.execute("BEGIN")
            do {
                try db.execute("SELECT pg_advisory_xact_lock($1)", [String(Self.mediaLockKey)])
                // The bytes as a binary parameter: no hex text twice their size.
                try db.execute(
                    """
                    INSERT INTO media_objects (sha256, extension, content_type, byte_count, bytes, stored_at_ms)
                    VALUES ($1, $2, $3, $4, $5, $6)
                    ON CONFLICT (sha256) DO UPDATE SET stored_at_ms = GREATEST(media_objects.stored_at_ms, excluded.stored_at_ms)
                    """,
                    binary: [
                        .text(object.sha256), .text(object.fileExtension), .text(object.contentType), .text(String(object.bytes.count)),
                        .bytes(object.bytes), .text(String(object.storedAtMs)),
                    ], resultsInBinary: false)
                var total = try db.execute("SELECT COALESCE(SUM(byte_count), 0) FROM media_objects").int(0, 0) ?? 0
                var evicted: [String] = []
                // A record older than the retention no longer holds its copy.
                let cutoff = String(object.storedAtMs - MediaObject.referenceRetentionMs)
                if total > budgetBytes {
                    let candidates = try db.execute(
                        """
                        SELECT sha256, byte_count FROM media_objects m
                        WHERE sha256 <> $1 AND NOT EXISTS (SELECT 1 FROM push_media p WHERE p.sha256 = m.sha256 AND p.recorded_at_ms >= $2)
                        ORDER BY stored_at_ms, sha256 COLLATE "C"
                        """, [object.sha256, cutoff])
                    for (sha, bytes) in candidates.rows({ (candidates.text($0, 0) ?? "", candidates.int($0, 1) ?? 0) }) where total > budgetBytes {
                        try db.execute("DELETE FROM media_objects WHERE sha256 = $1", [sha])
                        total -= bytes
                        evicted.append(sha)
                    }
                }
                if total > budgetBytes {
                    let referenced =
                        try db.execute(
                            "SELECT COALESCE(SUM(byte_count), 0) FROM media_objects m WHERE EXISTS (SELECT 1 FROM push_media p WHERE p.sha256 = m.sha256 AND p.recorded_at_ms >= $1)",
                            [cutoff]
                        ).int(0, 0) ?? 0
                    try db.execute("ROLLBACK")
                    return .full(referencedBytes: referenced)
                }
                try db.execute("COMMIT")
                return .stored(evicted: evicted)
            } catch {
                if db.isConnected { _ = try? db.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// A stored file (see `MediaStore.media(_:)`).
    public func media(_ sha256: String) throws -> MediaObject? {
        try pooled(readOnly: true) { db in
            // Binary results: the bytes as stored (hex text was twice their size, and decoded here).
            let r = try db.execute(
                "SELECT sha256, extension, content_type, bytes, stored_at_ms FROM media_objects WHERE sha256 = $1", binary: [.text(sha256)],
                resultsInBinary: true)
            guard r.count == 1, let bytes = r.bytes(0, 3) else { return nil }
            func text(_ column: Int) -> String { r.bytes(0, column).map { String(decoding: $0, as: UTF8.self) } ?? "" }
            return MediaObject(
                sha256: text(0), fileExtension: text(1), contentType: text(2), bytes: bytes, storedAtMs: r.binaryInt64(0, 4) ?? 0)
        }
    }

    /// Records one URL's check (see `MediaStore.recordMedia(_:)`).
    public func recordMedia(_ record: PushMediaRecord) throws {
        _ = try write { db in try Self.upsertMedia(record, on: db) }
    }

    /// Records several URLs' checks and their webhook deliveries in one transaction (see
    /// `MediaStore.recordMedia(_:webhooks:)`).
    public func recordMedia(_ records: [PushMediaRecord], webhooks deliveries: [WebhookDelivery]) throws {
        _ = try write { db in
            try Self.inTransaction(db) {
                for record in records { try Self.upsertMedia(record, on: db) }
                try Self.insertWebhookDeliveries(deliveries, on: db)
            }
        }
    }

    private static func upsertMedia(_ record: PushMediaRecord, on db: PostgresConnection) throws {
        try db.execute(
            """
            INSERT INTO push_media (push_id, original_url, reason, action, original_type, original_bytes, sha256, optimized_type,
                                    optimized_bytes, sent_url, recorded_at_ms)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
            ON CONFLICT (push_id, original_url) DO UPDATE SET reason = excluded.reason, action = excluded.action,
              original_type = excluded.original_type, original_bytes = excluded.original_bytes, sha256 = excluded.sha256,
              optimized_type = excluded.optimized_type, optimized_bytes = excluded.optimized_bytes, sent_url = excluded.sent_url,
              recorded_at_ms = excluded.recorded_at_ms
            """,
            [
                record.pushID, record.originalURL, record.reason, record.action, record.originalType, record.originalBytes.map(String.init),
                record.sha256, record.optimizedType, record.optimizedBytes.map(String.init), record.sentURL, String(record.recordedAtMs),
            ])
    }

    /// One push's media records (see `MediaStore.pushMedia(_:)`).
    public func pushMedia(_ pushID: String) throws -> [PushMediaRecord] {
        try pooled(readOnly: true) { db in
            let r = try db.execute(
                """
                SELECT push_id, original_url, reason, action, original_type, original_bytes, sha256, optimized_type, optimized_bytes,
                       sent_url, recorded_at_ms FROM push_media WHERE push_id = $1 ORDER BY original_url COLLATE "C"
                """, [pushID])
            return r.rows {
                PushMediaRecord(
                    pushID: r.text($0, 0) ?? "", originalURL: r.text($0, 1) ?? "", reason: r.text($0, 2), action: r.text($0, 3) ?? "",
                    originalType: r.text($0, 4), originalBytes: r.int($0, 5), sha256: r.text($0, 6), optimizedType: r.text($0, 7),
                    optimizedBytes: r.int($0, 8), sentURL: r.text($0, 9), recordedAtMs: r.int($0, 10) ?? 0)
            }
        }
    }

    /// The media check's counts (see `MediaStore.mediaCheckTotals(fromMs:toMs:)`).
    public func mediaCheckTotals(fromMs: Int?, toMs: Int?) throws -> MediaCheckTotals {
        try pooled(readOnly: true) { db in
            let r = try db.execute(
                """
                SELECT reason, action, COUNT(*) FROM push_media WHERE recorded_at_ms >= $1 AND recorded_at_ms < $2
                GROUP BY reason, action
                """, [String(fromMs ?? Int(Int64.min)), String(toMs ?? Int(Int64.max))])
            return MediaCheckTotals(rows: r.rows { MediaCheckTotals.Row(reason: r.text($0, 0), action: r.text($0, 1) ?? "", count: r.int($0, 2) ?? 0) })
        }
    }

    /// The edge's bytes and files (see `MediaStore.mediaUsage()`).
    public func mediaUsage() throws -> (bytes: Int, files: Int) {
        try pooled(readOnly: true) { db in
            let r = try db.execute("SELECT COALESCE(SUM(byte_count), 0), COUNT(*) FROM media_objects")
            return (r.int(0, 0) ?? 0, r.int(0, 1) ?? 0)
        }
    }

    /// Lowercase hex of `data` (a `bytea` parameter through `decode(…, 'hex')`).
    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(data.count * 2)
        for byte in data {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
