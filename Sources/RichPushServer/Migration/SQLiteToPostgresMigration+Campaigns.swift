import Foundation
import RichPushCore

/// Campaigns and device tags (schema version 7): `device_tags`, then a campaign's
/// `campaign_targets`, its `campaign_chunks` and last its `campaigns` row, so that an instance
/// already running on the target never sees a campaign without its chunks (it would finish it)
/// nor a chunk without its targets. Each row passes the server's rules first
/// (`MigrationRowCheck`); a row already in PostgreSQL (same key) is left as it is there, so a
/// re-run, or a run into a database where the campaign goes on, changes nothing twice.
///
/// A campaign is copied in the state the file holds: a scheduled one starts at its `send_at`, a
/// running one goes on from PostgreSQL's instances. Its chunks keep their leases: a chunk the
/// SQLite server had leased is taken over once that lease runs out (`--campaign-lease-seconds`
/// after the SQLite server's last renewal), as after a crash: targets with a result are never
/// sent again, targets in flight are sent again and counted in `resent_after_crash`.
extension SQLiteToPostgresMigration {
    /// Copies device tags, campaign targets, chunks and campaigns (empty summaries before version 7).
    func copyCampaigns(budget: inout Int, progress: (Progress) -> Void) throws -> [TableSummary] {
        let tables = ["device tags", "campaign targets", "campaign chunks", "campaigns"]
        guard sourceVersion >= 7 else { return tables.map { TableSummary(table: $0, sourceRows: 0, copiedBefore: 0, copied: 0, new: 0) } }
        return [
            try copy(table: tables[0], item: "device_tags", budget: &budget, progress: progress, write: copyDeviceTags),
            try copy(table: tables[1], item: "campaign_targets", budget: &budget, progress: progress, write: copyCampaignTargets),
            try copy(table: tables[2], item: "campaign_chunks", budget: &budget, progress: progress, write: copyCampaignChunks),
            try copy(table: tables[3], item: "campaigns", budget: &budget, progress: progress, write: copyCampaignRows),
        ]
    }

    /// Reads a chunk of `item` after rowid `after` (`columns` after the rowid, then the byte
    /// lengths of `lengths`), skips the rows `check` refuses, and hands the rest to `write` as
    /// one PostgreSQL array literal per column (from `values`); `write` stores them with the
    /// new watermark (parameters after the arrays: source, item, last rowid) and returns how
    /// many rows were new. A chunk whose every row was refused only moves the watermark.
    func copyChecked(
        _ item: String, after: Int, columns: String, lengths: [String], check: (SQLiteStatement) -> String?,
        values: (SQLiteStatement) -> [String?], write: (_ parameters: [String?]) throws -> Int
    ) throws -> Chunk {
        let query = try source.prepared(
            "SELECT rowid, \(columns)\(MigrationRowCheck.lengths(lengths)) FROM \(item) WHERE rowid > ? ORDER BY rowid LIMIT ?")
        let (rows, chunk) = try readChunk(query, item: item, after: after, problem: check) { row, _ in values(row) }
        guard let width = rows.first?.count else { return chunk }
        let arrays: [String?] = (0..<width).map { column in PostgresArrayLiteral.text(rows.map { $0[column] }) }
        return chunk.written(new: try write(arrays + [sourceKey, item, String(chunk.last)]))
    }

    /// The `columns` of `row` as text (integers in decimal), `nil` for NULL.
    static func texts(_ row: SQLiteStatement, _ columns: [(Int32, isInteger: Bool)]) -> [String?] {
        columns.map { column, isInteger in isInteger ? row.int(column).map(String.init) : row.text(column) }
    }

    private func insertCounting(_ sql: String, _ parameters: [String?]) throws -> Int {
        try target.write { try $0.execute(sql, parameters) }.int(0, 0) ?? 0
    }

    /// `devices` (version 3), newer registration wins.
    func copyDevices(after: Int) throws -> Chunk {
        let query = try source.prepared(
            "SELECT rowid, device_token, provider, platform, user_id, app_version, registered_at_ms\(MigrationRowCheck.lengths(["device_token", "user_id", "app_version"])) FROM devices WHERE rowid > ? ORDER BY rowid LIMIT ?"
        )
        let (rows, chunk) = try readChunk(query, item: "devices", after: after, problem: MigrationRowCheck.deviceProblem) { row, rowid in
            (rowid, row.text(1) ?? "", row.text(2) ?? "", row.text(3) ?? "", row.text(4), row.text(5), row.int(6) ?? 0)
        }
        guard !rows.isEmpty else { return chunk }
        let result = try target.write {
            try $0.execute(
                """
                WITH merged AS (
                    INSERT INTO devices AS d (device_token, provider, platform, user_id, app_version, registered_at_ms)
                    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[]) ORDER BY 1
                    ON CONFLICT (device_token) DO UPDATE SET provider = excluded.provider, platform = excluded.platform,
                        user_id = excluded.user_id, app_version = excluded.app_version, registered_at_ms = excluded.registered_at_ms
                        WHERE d.registered_at_ms <= excluded.registered_at_ms
                    RETURNING (xmax = 0) AS inserted
                )\(Self.progressCTE(first: 7))
                SELECT count(*) FILTER (WHERE inserted) FROM merged
                """,
                [
                    PostgresArrayLiteral.text(rows.map(\.1)), PostgresArrayLiteral.text(rows.map(\.2)), PostgresArrayLiteral.text(rows.map(\.3)),
                    PostgresArrayLiteral.text(rows.map(\.4)), PostgresArrayLiteral.text(rows.map(\.5)), PostgresArrayLiteral.integers(rows.map(\.6)),
                    sourceKey, "devices", String(chunk.last),
                ])
        }
        return chunk.written(new: result.int(0, 0) ?? 0)
    }

    private func copyDeviceTags(after: Int) throws -> Chunk {
        try copyChecked(
            "device_tags", after: after, columns: "device_token, tag", lengths: ["device_token", "tag"], check: MigrationRowCheck.deviceTagProblem,
            values: { Self.texts($0, [(1, false), (2, false)]) },
            write: { parameters in
                try insertCounting(
                    """
                    WITH merged AS (
                        INSERT INTO device_tags (device_token, tag) SELECT * FROM unnest($1::text[], $2::text[]) ORDER BY 1, 2
                        ON CONFLICT DO NOTHING RETURNING 1
                    )\(Self.progressCTE(first: 3))
                    SELECT count(*) FROM merged
                    """, parameters)
            })
    }

    private func copyCampaignTargets(after: Int) throws -> Chunk {
        try copyChecked(
            "campaign_targets", after: after, columns: "campaign_id, chunk, device_token, provider, state, outcome, status, reason, attempts",
            lengths: ["campaign_id", "device_token", "outcome", "reason"], check: MigrationRowCheck.campaignTargetProblem,
            values: { Self.texts($0, [(1, false), (2, true), (3, false), (4, false), (5, false), (6, false), (7, true), (8, false), (9, true)]) },
            write: { parameters in
                try insertCounting(
                    """
                    WITH merged AS (
                        INSERT INTO campaign_targets (campaign_id, chunk, device_token, provider, state, outcome, status, reason, attempts)
                        SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::integer[], $8::text[],
                                             $9::integer[]) ORDER BY 1, 2, 3
                        ON CONFLICT DO NOTHING RETURNING 1
                    )\(Self.progressCTE(first: 10))
                    SELECT count(*) FROM merged
                    """, parameters)
            })
    }

    private func copyCampaignChunks(after: Int) throws -> Chunk {
        try copyChecked(
            "campaign_chunks", after: after, columns: "campaign_id, chunk, state, owner, lease_until_ms", lengths: ["campaign_id", "owner"],
            check: MigrationRowCheck.campaignChunkProblem, values: { Self.texts($0, [(1, false), (2, true), (3, false), (4, false), (5, true)]) },
            write: { parameters in
                try insertCounting(
                    """
                    WITH merged AS (
                        INSERT INTO campaign_chunks (campaign_id, chunk, state, owner, lease_until_ms)
                        SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[]) ORDER BY 1, 2
                        ON CONFLICT DO NOTHING RETURNING 1
                    )\(Self.progressCTE(first: 6))
                    SELECT count(*) FROM merged
                    """, parameters)
            })
    }

    private func copyCampaignRows(after: Int) throws -> Chunk {
        let texts = ["campaign_id", "push_id", "title", "payload", "topic", "push_type", "collapse_id", "last_error", "idempotency_key"]
        let integers: Set<Int32> = [8, 9, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]
        return try copyChecked(
            "campaigns", after: after, columns: "\(CampaignRecord.version7Columns), idempotency_key", lengths: texts,
            check: MigrationRowCheck.campaignProblem, values: { row in Self.texts(row, (1...26).map { ($0, integers.contains($0)) }) },
            write: { parameters in
                // A campaign whose id or idempotency key PostgreSQL has already is left as it is there.
                try insertCounting(
                    """
                    WITH merged AS (
                        INSERT INTO campaigns (\(CampaignRecord.version7Columns), idempotency_key)
                        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::integer[],
                            $9::bigint[], $10::text[], $11::text[], $12::text[], $13::bigint[], $14::bigint[], $15::bigint[], $16::bigint[],
                            $17::bigint[], $18::bigint[], $19::bigint[], $20::bigint[], $21::bigint[], $22::bigint[], $23::bigint[], $24::bigint[],
                            $25::text[], $26::text[]) ORDER BY 1
                        ON CONFLICT DO NOTHING RETURNING 1
                    )\(Self.progressCTE(first: 27))
                    SELECT count(*) FROM merged
                    """, parameters)
            })
    }
}
