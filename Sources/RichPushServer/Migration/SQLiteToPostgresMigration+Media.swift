import Foundation
import RichPushCore

/// The media edge's tables (schema version 6): `push_media` (what the send-time check found and
/// did, per push and original URL) and `media_objects` (the optimised files), copied in that
/// order, so a copied file is already referenced when it lands and a server running on the
/// target never evicts it. Each row passes the server's rules first (`MigrationRowCheck`): a
/// file whose bytes do not hash to its name, or whose name is not a SHA-256, is never copied (the
/// edge would serve other bytes under an immutable name).
extension SQLiteToPostgresMigration {
    /// The media files per chunk: at most 64 (each file is one row of up to its full size; an
    /// optimised image is ≤ 300 KB, so a chunk of them is ≤ 20 MB in memory, twice that as hex).
    static let mediaChunkRows = 64
    /// What `push_media.action` may be (`PushMediaRecord.action`).
    static let mediaActions: Set<String> = ["checked", "optimized", "refused", "sent_text"]

    /// Copies `push_media`, then `media_objects` (empty summaries for a file before version 6).
    func copyMedia(budget: inout Int, progress: (Progress) -> Void) throws -> [TableSummary] {
        guard sourceVersion >= 6 else {
            return ["media records", "media files"].map { TableSummary(table: $0, sourceRows: 0, copiedBefore: 0, copied: 0, new: 0) }
        }
        return [
            try copy(table: "media records", item: "push_media", budget: &budget, progress: progress, write: copyMediaRecords),
            try copy(table: "media files", item: "media_objects", budget: &budget, progress: progress, write: copyMediaFiles),
        ]
    }

    private func copyMediaRecords(after: Int) throws -> Chunk {
        let texts = ["push_id", "original_url", "reason", "action", "original_type", "sha256", "optimized_type", "sent_url"]
        let query = try source.prepared(
            """
            SELECT rowid, push_id, original_url, reason, action, original_type, original_bytes, sha256, optimized_type, optimized_bytes,
                   sent_url, recorded_at_ms\(MigrationRowCheck.lengths(texts)) FROM push_media WHERE rowid > ? ORDER BY rowid LIMIT ?
            """)
        let (rows, chunk) = try readChunk(query, item: "push_media", after: after, problem: Self.mediaRecordProblem) { row, _ in
            PushMediaRecord(
                pushID: row.text(1) ?? "", originalURL: row.text(2) ?? "", reason: row.text(3), action: row.text(4) ?? "", originalType: row.text(5),
                originalBytes: row.int(6), sha256: row.text(7), optimizedType: row.text(8), optimizedBytes: row.int(9), sentURL: row.text(10),
                recordedAtMs: row.int(11) ?? 0)
        }
        guard !rows.isEmpty else { return chunk }
        // Newer wins: a push checked again on the target since is not rolled back.
        let result = try target.write {
            try $0.execute(
                """
                WITH merged AS (
                    INSERT INTO push_media AS p (push_id, original_url, reason, action, original_type, original_bytes, sha256, optimized_type,
                                                 optimized_bytes, sent_url, recorded_at_ms)
                    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[],
                                         $9::bigint[], $10::text[], $11::bigint[]) ORDER BY 1, 2
                    ON CONFLICT (push_id, original_url) DO UPDATE SET reason = excluded.reason, action = excluded.action,
                        original_type = excluded.original_type, original_bytes = excluded.original_bytes, sha256 = excluded.sha256,
                        optimized_type = excluded.optimized_type, optimized_bytes = excluded.optimized_bytes, sent_url = excluded.sent_url,
                        recorded_at_ms = excluded.recorded_at_ms
                        WHERE p.recorded_at_ms <= excluded.recorded_at_ms
                    RETURNING (xmax = 0) AS inserted
                )\(Self.progressCTE(first: 12))
                SELECT count(*) FILTER (WHERE inserted) FROM merged
                """,
                [
                    PostgresArrayLiteral.text(rows.map(\.pushID)), PostgresArrayLiteral.text(rows.map(\.originalURL)),
                    PostgresArrayLiteral.text(rows.map(\.reason)), PostgresArrayLiteral.text(rows.map(\.action)),
                    PostgresArrayLiteral.text(rows.map(\.originalType)), PostgresArrayLiteral.integers(rows.map(\.originalBytes)),
                    PostgresArrayLiteral.text(rows.map(\.sha256)), PostgresArrayLiteral.text(rows.map(\.optimizedType)),
                    PostgresArrayLiteral.integers(rows.map(\.optimizedBytes)), PostgresArrayLiteral.text(rows.map(\.sentURL)),
                    PostgresArrayLiteral.integers(rows.map(\.recordedAtMs)), sourceKey, "push_media", String(chunk.last),
                ])
        }
        return chunk.written(new: result.int(0, 0) ?? 0)
    }

    private func copyMediaFiles(after: Int) throws -> Chunk {
        let query = try source.prepared(
            """
            SELECT rowid, sha256, extension, content_type, byte_count, bytes, stored_at_ms\(MigrationRowCheck.lengths(["sha256", "extension", "content_type"]))
            FROM media_objects WHERE rowid > ? ORDER BY rowid LIMIT ?
            """)
        let (files, chunk) = try readChunk(
            query, item: "media_objects", after: after, limit: min(chunkSize, Self.mediaChunkRows),
            problem: { Self.mediaFileProblem($0, bytes: $0.data(5) ?? Data()) },
            row: { row, _ in
                MediaObject(
                    sha256: row.text(1) ?? "", fileExtension: row.text(2) ?? "", contentType: row.text(3) ?? "", bytes: row.data(5) ?? Data(),
                    storedAtMs: row.int(6) ?? 0)
            })
        guard !files.isEmpty else { return chunk }
        // One transaction: the files, then the watermark (a file stored twice is the same bytes).
        let new = try target.write { db -> Int in
            try db.execute("BEGIN")
            do {
                var inserted = 0
                for file in files {
                    let r = try db.execute(
                        """
                        INSERT INTO media_objects (sha256, extension, content_type, byte_count, bytes, stored_at_ms)
                        VALUES ($1, $2, $3, $4, decode($5, 'hex'), $6) ON CONFLICT (sha256) DO NOTHING RETURNING 1
                        """,
                        [
                            file.sha256, file.fileExtension, file.contentType, String(file.bytes.count), PostgresStore.hex(file.bytes),
                            String(file.storedAtMs),
                        ])
                    inserted += r.rows { _ in 1 }.count
                }
                try db.execute(
                    """
                    INSERT INTO richpush_migrations AS m (source, item, last_rowid) VALUES ($1, $2, $3)
                    ON CONFLICT (source, item) DO UPDATE SET last_rowid = GREATEST(m.last_rowid, excluded.last_rowid), updated_at = now()
                    """, [sourceKey, "media_objects", String(chunk.last)])
                try db.execute("COMMIT")
                return inserted
            } catch {
                if db.isConnected { _ = try? db.execute("ROLLBACK") }
                throw error
            }
        }
        return chunk.written(new: new)
    }

    /// Why a `push_media` row (columns as selected above) breaks the server's rules, or `nil`.
    static func mediaRecordProblem(_ row: SQLiteStatement) -> String? {
        let count = 0...MigrationRowCheck.maximumCount, code = RichPushReceipt.Limits.codeBytes
        let action = row.text(4) ?? ""
        let sha = MigrationRowCheck.text(row, 7, 17)
        let problems: [() -> String?] = [
            { MigrationRowCheck.identifierProblem("push_id", MigrationRowCheck.text(row, 1, 12)) },
            { urlProblem("original_url", MigrationRowCheck.text(row, 2, 13), required: true) },
            { MigrationRowCheck.textProblem("reason", MigrationRowCheck.text(row, 3, 14), maxBytes: code) },
            { mediaActions.contains(action) ? nil : "action is '\(action.prefix(64))'; expected one of \(mediaActions.sorted().joined(separator: ", "))" },
            { MigrationRowCheck.textProblem("original_type", MigrationRowCheck.text(row, 5, 16), maxBytes: 255) },
            { MigrationRowCheck.numberProblem("original_bytes", row.int(6), in: count) },
            { MigrationRowCheck.textProblem("sha256", sha, maxBytes: 64) },
            { sha.value.map { MediaObject.isDigest(Substring($0)) } == false ? "sha256 is not 64 lowercase hex digits" : nil },
            { MigrationRowCheck.textProblem("optimized_type", MigrationRowCheck.text(row, 8, 18), maxBytes: 255) },
            { MigrationRowCheck.numberProblem("optimized_bytes", row.int(9), in: count) },
            { urlProblem("sent_url", MigrationRowCheck.text(row, 10, 19), required: false) },
            { MigrationRowCheck.numberProblem("recorded_at_ms", row.int(11), in: 0...MigrationRowCheck.maximumTimeMs, optional: false) },
        ]
        return problems.lazy.compactMap { $0() }.first
    }

    /// Why a `media_objects` row (columns as selected above) breaks the server's rules, or `nil`.
    static func mediaFileProblem(_ row: SQLiteStatement, bytes: Data) -> String? {
        let name = MigrationRowCheck.text(row, 1, 7)
        if let problem = MigrationRowCheck.textProblem("sha256", name, maxBytes: 64) { return problem }
        guard let sha = name.value, MediaObject.isDigest(Substring(sha)) else { return "sha256 is not 64 lowercase hex digits" }
        guard MediaObject.hexDigest(bytes) == sha else {
            return "the file's bytes do not hash to its sha256 (the edge serves a name as immutable content)"
        }
        let ext = row.text(2) ?? ""
        guard !ext.isEmpty, ext.utf8.count <= 8, ext.utf8.allSatisfy({ (48...57).contains($0) || (97...122).contains($0) }) else {
            return "extension is '\(ext.prefix(64))'; expected a few lowercase letters or digits (jpg)"
        }
        return MigrationRowCheck.textProblem("extension", MigrationRowCheck.text(row, 2, 8), maxBytes: 8)
            ?? MigrationRowCheck.textProblem("content_type", MigrationRowCheck.text(row, 3, 9), maxBytes: 255)
            ?? (row.int(4) == bytes.count ? nil : "byte_count is \(row.int(4).map(String.init) ?? "missing"); the file has \(bytes.count) bytes")
            ?? MigrationRowCheck.numberProblem("stored_at_ms", row.int(6), in: 0...MigrationRowCheck.maximumTimeMs, optional: false)
    }

    /// Why a URL column is not acceptable (a NUL byte, over 8 KB), or `nil`: any text a payload
    /// held is recorded by the server, also one the probe refused as `bad_url`.
    private static func urlProblem(_ name: String, _ text: MigrationRowCheck.Text, required: Bool) -> String? {
        guard let value = text.value, !value.isEmpty else { return required ? "\(name) is empty" : nil }
        if let stored = text.storedBytes, stored != value.utf8.count { return "\(name) holds a NUL byte" }
        return value.utf8.count <= 8_192 ? nil : "\(name) is \(value.utf8.count) bytes; at most 8192 bytes"
    }
}
