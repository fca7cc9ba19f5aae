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
    /// Copies device tags, campaign targets, chunks, variants (version 10) and campaigns (empty
    /// summaries before version 7), and conversions (version 10).
    func copyCampaigns(budget: inout Int, progress: (Progress) -> Void) throws -> [TableSummary] {
        let tables = ["device tags", "campaign targets", "campaign chunks", "campaign variants", "campaigns", "conversions"]
        guard sourceVersion >= 7 else { return tables.map { TableSummary(table: $0, sourceRows: 0, copiedBefore: 0, copied: 0, new: 0) } }
        let empty = { (table: String) in TableSummary(table: table, sourceRows: 0, copiedBefore: 0, copied: 0, new: 0) }
        return [
            try copy(table: tables[0], item: "device_tags", budget: &budget, progress: progress, write: copyDeviceTags),
            try copy(table: tables[1], item: "campaign_targets", budget: &budget, progress: progress, write: copyCampaignTargets),
            try copy(table: tables[2], item: "campaign_chunks", budget: &budget, progress: progress, write: copyCampaignChunks),
            // A campaign's variants before its row: an instance never sends a target without its variant's payload.
            sourceVersion >= 10
                ? try copy(table: tables[3], item: "campaign_variants", budget: &budget, progress: progress, write: copyCampaignVariants) : empty(tables[3]),
            try copy(table: tables[4], item: "campaigns", budget: &budget, progress: progress, write: copyCampaignRows),
            sourceVersion >= 10
                ? try copy(table: tables[5], item: "conversions", budget: &budget, progress: progress, write: copyConversions) : empty(tables[5]),
        ]
    }

    /// Reads a chunk of `item` after rowid `after` (`columns` after the rowid, then the byte
    /// lengths of `lengths`), skips the rows `check` refuses, and hands the rest to `write` as
    /// one PostgreSQL array literal per column (from `values`); `write` stores them with the
    /// new watermark (parameters after the arrays: source, item, last rowid) and returns how
    /// many rows were new. A chunk whose every row was refused only moves the watermark.
    func copyChecked(
        _ item: String, after: Int, columns: String, lengths: [String], trailing: String = "", check: (SQLiteStatement) -> String?,
        values: (SQLiteStatement) -> [String?], write: (_ parameters: [String?]) throws -> Int
    ) throws -> Chunk {
        // `trailing`: columns of later schema versions, after the lengths (so the rules of the
        // earlier columns read the same positions whatever the file's version).
        let query = try source.prepared(
            "SELECT rowid, \(columns)\(MigrationRowCheck.lengths(lengths))\(trailing.isEmpty ? "" : ", " + trailing) FROM \(item) WHERE rowid > ? ORDER BY rowid LIMIT ?"
        )
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

    /// `devices` (version 3), newer registration wins; from version 10 with each device's
    /// credential and `recipient_receipts` (a device that has a credential in PostgreSQL keeps it).
    func copyDevices(after: Int) throws -> Chunk {
        let later = sourceVersion >= 10 ? "device_id, device_secret, recipient_receipts" : "NULL, NULL, 0"
        let query = try source.prepared(
            "SELECT rowid, device_token, provider, platform, user_id, app_version, registered_at_ms\(MigrationRowCheck.lengths(["device_token", "user_id", "app_version"])), \(later) FROM devices WHERE rowid > ? ORDER BY rowid LIMIT ?"
        )
        let problem: (SQLiteStatement) -> String? = { MigrationRowCheck.deviceProblem($0) ?? MigrationRowCheck.deviceCredentialProblem($0, first: 10) }
        let (rows, chunk) = try readChunk(query, item: "devices", after: after, problem: problem) { row, rowid in
            (
                rowid, row.text(1) ?? "", row.text(2) ?? "", row.text(3) ?? "", row.text(4), row.text(5), row.int(6) ?? 0, row.text(10), row.text(11),
                (row.int(12) ?? 0) != 0
            )
        }
        guard !rows.isEmpty else { return chunk }
        let result = try target.write {
            try $0.execute(
                """
                WITH merged AS (
                    INSERT INTO devices AS d (device_token, provider, platform, user_id, app_version, registered_at_ms, device_id, device_secret,
                        recipient_receipts)
                    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::boolean[])
                    ORDER BY 1
                    ON CONFLICT (device_token) DO UPDATE SET provider = excluded.provider, platform = excluded.platform,
                        user_id = excluded.user_id, app_version = excluded.app_version, registered_at_ms = excluded.registered_at_ms,
                        device_id = COALESCE(d.device_id, excluded.device_id),
                        device_secret = CASE WHEN d.device_id IS NULL THEN excluded.device_secret ELSE d.device_secret END,
                        recipient_receipts = excluded.recipient_receipts
                        WHERE d.registered_at_ms <= excluded.registered_at_ms
                    RETURNING (xmax = 0) AS inserted
                )\(Self.progressCTE(first: 10))
                SELECT count(*) FILTER (WHERE inserted) FROM merged
                """,
                [
                    PostgresArrayLiteral.text(rows.map(\.1)), PostgresArrayLiteral.text(rows.map(\.2)), PostgresArrayLiteral.text(rows.map(\.3)),
                    PostgresArrayLiteral.text(rows.map(\.4)), PostgresArrayLiteral.text(rows.map(\.5)), PostgresArrayLiteral.integers(rows.map(\.6)),
                    PostgresArrayLiteral.text(rows.map(\.7)), PostgresArrayLiteral.text(rows.map(\.8)),
                    PostgresArrayLiteral.text(rows.map { $0.9 ? "true" : "false" }), sourceKey, "devices", String(chunk.last),
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
            lengths: ["campaign_id", "device_token", "outcome", "reason"], trailing: sourceVersion >= 10 ? "variant" : "NULL",
            check: { MigrationRowCheck.campaignTargetProblem($0) ?? MigrationRowCheck.variantNameProblem($0.text(14), optional: true) },
            values: { Self.texts($0, [(1, false), (2, true), (3, false), (4, false), (5, false), (6, false), (7, true), (8, false), (9, true), (14, false)]) },
            write: { parameters in
                try insertCounting(
                    """
                    WITH merged AS (
                        INSERT INTO campaign_targets (campaign_id, chunk, device_token, provider, state, outcome, status, reason, attempts, variant)
                        SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::integer[], $8::text[],
                                             $9::integer[], $10::text[]) ORDER BY 1, 2, 3
                        ON CONFLICT DO NOTHING RETURNING 1
                    )\(Self.progressCTE(first: 11))
                    SELECT count(*) FROM merged
                    """, parameters)
            })
    }

    private func copyCampaignChunks(after: Int) throws -> Chunk {
        try copyChecked(
            "campaign_chunks", after: after, columns: "campaign_id, chunk, state, owner, lease_until_ms", lengths: ["campaign_id", "owner"],
            trailing: sourceVersion >= 10 ? "phase" : "'main'",
            check: { MigrationRowCheck.campaignChunkProblem($0) ?? MigrationRowCheck.oneOfProblem("phase", $0.text(8), ["main", "test", "rest"]) },
            values: { Self.texts($0, [(1, false), (2, true), (3, false), (4, false), (5, true), (8, false)]) },
            write: { parameters in
                try insertCounting(
                    """
                    WITH merged AS (
                        INSERT INTO campaign_chunks (campaign_id, chunk, state, owner, lease_until_ms, phase)
                        SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[]) ORDER BY 1, 2
                        ON CONFLICT DO NOTHING RETURNING 1
                    )\(Self.progressCTE(first: 7))
                    SELECT count(*) FROM merged
                    """, parameters)
            })
    }

    private func copyCampaignRows(after: Int) throws -> Chunk {
        let texts = ["campaign_id", "push_id", "title", "payload", "topic", "push_type", "collapse_id", "last_error", "idempotency_key"]
        let integers: Set<Int32> = [8, 9, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]
        // Version 10's columns come after the lengths (36…45); before it, their defaults.
        let later = sourceVersion >= 10 ? CampaignRecord.version10Columns : "0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0"
        let laterTypes: [(Int32, isInteger: Bool)] = [
            (36, true), (37, false), (38, true), (39, true), (40, false), (41, false), (42, true), (43, true), (44, true), (45, true),
        ]
        return try copyChecked(
            "campaigns", after: after, columns: "\(CampaignRecord.version7Columns), idempotency_key", lengths: texts, trailing: later,
            check: { MigrationRowCheck.campaignProblem($0) ?? MigrationRowCheck.campaignVersion10Problem($0, first: 36) },
            values: { row in Self.texts(row, (1...26).map { ($0, integers.contains($0)) } + laterTypes) },
            write: { parameters in
                // A campaign whose id or idempotency key PostgreSQL has already is left as it is there.
                try insertCounting(
                    """
                    WITH merged AS (
                        INSERT INTO campaigns (\(CampaignRecord.version7Columns), idempotency_key, \(CampaignRecord.version10Columns))
                        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::integer[],
                            $9::bigint[], $10::text[], $11::text[], $12::text[], $13::bigint[], $14::bigint[], $15::bigint[], $16::bigint[],
                            $17::bigint[], $18::bigint[], $19::bigint[], $20::bigint[], $21::bigint[], $22::bigint[], $23::bigint[], $24::bigint[],
                            $25::text[], $26::text[], $27::integer[], $28::text[], $29::integer[], $30::bigint[], $31::text[], $32::text[], $33::bigint[],
                            $34::bigint[], $35::bigint[], $36::integer[]) ORDER BY 1
                        ON CONFLICT DO NOTHING RETURNING 1
                    )\(Self.progressCTE(first: 37))
                    SELECT count(*) FROM merged
                    """, parameters)
            })
    }

    /// `campaign_variants` (version 10).
    private func copyCampaignVariants(after: Int) throws -> Chunk {
        try copyChecked(
            "campaign_variants", after: after, columns: "campaign_id, variant, push_id, title, payload, weight, media_report",
            lengths: ["campaign_id", "push_id", "title", "payload", "media_report"], check: MigrationRowCheck.campaignVariantProblem,
            values: { Self.texts($0, [(1, false), (2, false), (3, false), (4, false), (5, false), (6, true), (7, false)]) },
            write: { parameters in
                try insertCounting(
                    """
                    WITH merged AS (
                        INSERT INTO campaign_variants (campaign_id, variant, push_id, title, payload, weight, media_report)
                        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::integer[], $7::text[]) ORDER BY 1, 2
                        ON CONFLICT DO NOTHING RETURNING 1
                    )\(Self.progressCTE(first: 8))
                    SELECT count(*) FROM merged
                    """, parameters)
            })
    }

    /// `conversions` (version 10).
    private func copyConversions(after: Int) throws -> Chunk {
        try copyChecked(
            "conversions", after: after,
            columns: "push_id, conversion_id, campaign_id, variant, device_id, user_id, value, occurred_at_ms, recorded_at_ms",
            lengths: ["push_id", "conversion_id", "campaign_id", "device_id", "user_id"], check: MigrationRowCheck.conversionProblem,
            values: { row in
                Self.texts(row, [(1, false), (2, false), (3, false), (4, false), (5, false), (6, false)]) + [row.double(7).map { String($0) }]
                    + Self.texts(row, [(8, true), (9, true)])
            },
            write: { parameters in
                try insertCounting(
                    """
                    WITH merged AS (
                        INSERT INTO conversions (push_id, conversion_id, campaign_id, variant, device_id, user_id, value, occurred_at_ms, recorded_at_ms)
                        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::double precision[],
                                             $8::bigint[], $9::bigint[]) ORDER BY 1, 2
                        ON CONFLICT DO NOTHING RETURNING 1
                    )\(Self.progressCTE(first: 10))
                    SELECT count(*) FROM merged
                    """, parameters)
            })
    }
}
