import Foundation
import RichPushCore

/// The webhook outbox (schema version 8) and the admitted codes (version 9).
///
/// - `webhook_outbox`: the deliveries still pending and those given up (delivered ones are
///   deleted), in their order (`seq`), with their attempts, next attempt time and last error; a
///   lease held by the SQLite server is not copied (PostgreSQL's instances may claim the row at
///   once: at least once, the receiver deduplicates by event id). Written under the same
///   per-subject advisory locks as the server's own inserts, so a subject's events keep their
///   order against instances already running on the target. A delivery already there (same
///   endpoint and event id) is left as it is.
/// - `webhook_endpoints`: each endpoint's delivered and given-up counts are added to the
///   target's, the later last delivery and last error kept.
/// - `admitted_codes` (a table without rowid, and small: at most 64 codes per kind store-wide
///   and 8 per push): read whole in key order every run; a code already admitted in PostgreSQL
///   counts as copied before; a new one is admitted only within `CodeFolding`'s bounds, under
///   the advisory lock the server's admissions take, so the bounds hold after the copy too. A
///   code past a bound there is reported as skipped (rowid: its position in key order).
extension SQLiteToPostgresMigration {
    /// Copies the outbox and the endpoints' figures (version 8) and the admitted codes (version 9).
    func copyWebhooksAndCodes(budget: inout Int, progress: (Progress) -> Void) throws -> [TableSummary] {
        var out: [TableSummary] = []
        if sourceVersion >= 8 {
            out.append(try copy(table: "webhook events", item: "webhook_outbox", budget: &budget, progress: progress, write: copyWebhookEvents))
            out.append(try copy(table: "webhook endpoints", item: "webhook_endpoints", budget: &budget, progress: progress, write: copyWebhookEndpoints))
        } else {
            out += ["webhook events", "webhook endpoints"].map { TableSummary(table: $0, sourceRows: 0, copiedBefore: 0, copied: 0, new: 0) }
        }
        out.append(
            sourceVersion >= 9
                ? try copyAdmittedCodes(progress: progress) : TableSummary(table: "admitted codes", sourceRows: 0, copiedBefore: 0, copied: 0, new: 0))
        return out
    }

    private func copyWebhookEvents(after: Int) throws -> Chunk {
        try copyChecked(
            "webhook_outbox", after: after,
            columns: "endpoint, event_id, event_type, subject, body, created_at_ms, state, attempts, next_attempt_ms, last_status, last_error, done_at_ms",
            lengths: ["endpoint", "event_id", "subject", "body", "last_error"], trailing: sourceVersion >= 10 ? "failures" : "attempts",
            check: {
                MigrationRowCheck.webhookEventProblem($0) ?? MigrationRowCheck.numberProblem("failures", $0.int(18), in: 0...MigrationRowCheck.maximumCount)
            },
            values: {
                Self.texts(
                    $0,
                    [
                        (1, false), (2, false), (3, false), (4, false), (5, false), (6, true), (7, false), (8, true), (9, true), (10, true), (11, false),
                        (12, true), (18, true),
                    ])
            },
            write: { parameters in
                try target.write { connection in
                    try PostgresStore.inTransaction(connection) {
                        try connection.execute(
                            """
                            SELECT pg_advisory_xact_lock($1::integer, h) FROM (SELECT DISTINCT hashtext(s) AS h FROM unnest($2::text[]) AS u(s) ORDER BY 1) AS l
                            """, [String(PostgresStore.webhookLockKey), parameters[3]])
                        return try connection.execute(
                            """
                            WITH merged AS (
                                INSERT INTO webhook_outbox (endpoint, event_id, event_type, subject, body, created_at_ms, state, attempts, next_attempt_ms,
                                                            last_status, last_error, done_at_ms, failures)
                                SELECT endpoint, event_id, event_type, subject, body, created_at_ms, state, attempts, next_attempt_ms, last_status,
                                       last_error, done_at_ms, failures
                                FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::integer[],
                                            $9::bigint[], $10::integer[], $11::text[], $12::bigint[], $13::integer[]) WITH ORDINALITY
                                    AS u(endpoint, event_id, event_type, subject, body, created_at_ms, state, attempts, next_attempt_ms, last_status,
                                         last_error, done_at_ms, failures, n)
                                ORDER BY n
                                ON CONFLICT (endpoint, event_id) DO NOTHING RETURNING 1
                            )\(Self.progressCTE(first: 14))
                            SELECT count(*) FROM merged
                            """, parameters
                        ).int(0, 0) ?? 0
                    }
                }
            })
    }

    private func copyWebhookEndpoints(after: Int) throws -> Chunk {
        try copyChecked(
            "webhook_endpoints", after: after, columns: "endpoint, delivered, failed, last_delivered_at_ms, last_error, last_error_at_ms",
            lengths: ["endpoint", "last_error"], check: MigrationRowCheck.webhookEndpointProblem,
            values: { Self.texts($0, [(1, false), (2, true), (3, true), (4, true), (5, false), (6, true)]) },
            write: { parameters in
                try target.write { connection in
                    try connection.execute(
                        """
                        WITH merged AS (
                            INSERT INTO webhook_endpoints AS e (endpoint, delivered, failed, last_delivered_at_ms, last_error, last_error_at_ms)
                            SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::bigint[]) ORDER BY 1
                            ON CONFLICT (endpoint) DO UPDATE SET delivered = e.delivered + excluded.delivered, failed = e.failed + excluded.failed,
                                last_delivered_at_ms = GREATEST(e.last_delivered_at_ms, excluded.last_delivered_at_ms),
                                last_error = CASE WHEN excluded.last_error_at_ms > COALESCE(e.last_error_at_ms, -1) THEN excluded.last_error ELSE e.last_error END,
                                last_error_at_ms = GREATEST(e.last_error_at_ms, excluded.last_error_at_ms)
                            RETURNING (xmax = 0) AS inserted
                        )\(Self.progressCTE(first: 7))
                        SELECT count(*) FILTER (WHERE inserted) FROM merged
                        """, parameters
                    ).int(0, 0) ?? 0
                }
            })
    }

    /// `admitted_codes` in key order, `chunkSize` rows per transaction (see the type's discussion).
    private func copyAdmittedCodes(progress: (Progress) -> Void) throws -> TableSummary {
        let table = "admitted codes"
        let all = try source.prepared("SELECT count(*) FROM admitted_codes").rows { $0.int(0) ?? 0 }.first ?? 0
        var summary = TableSummary(table: table, sourceRows: all, copiedBefore: 0, copied: 0, new: 0)
        progress(Progress(table: table, done: 0, total: all))
        var after = ("", "", "")
        var position = 0
        var read = 0
        while true {
            let query = try source.prepared(
                """
                SELECT scope, kind, code\(MigrationRowCheck.lengths(["scope", "code"])) FROM admitted_codes
                WHERE ? OR (scope, kind, code) > (?, ?, ?) ORDER BY scope, kind, code LIMIT ?
                """)
            try query.bind([.integer(position == 0 ? 1 : 0), .text(after.0), .text(after.1), .text(after.2), .integer(chunkSize)])
            let rows = try query.rows { row in
                (scope: MigrationRowCheck.text(row, 0, 3), kind: row.text(1), code: MigrationRowCheck.text(row, 2, 4))
            }
            guard let lastRow = rows.last else { break }
            after = (lastRow.scope.value ?? "", lastRow.kind ?? "", lastRow.code.value ?? "")
            var valid: [(position: Int, scope: String, kind: String, code: String)] = []
            for row in rows {
                position += 1
                if let problem = MigrationRowCheck.admittedCodeProblem(scope: row.scope, kind: row.kind, code: row.code) {
                    summary.copied += 1
                    summary.skipped.append(SkippedRow(table: table, rowid: position, problem: problem))
                } else {
                    valid.append((position, row.scope.value ?? "", row.kind ?? "", row.code.value ?? ""))
                }
            }
            if !valid.isEmpty {
                let (present, admitted) = try admit(valid.map { ($0.scope, $0.kind, $0.code) })
                for row in valid {
                    let key = "\(row.scope)\u{1}\(row.kind)\u{1}\(row.code)"
                    if present.contains(key) {
                        summary.copiedBefore += 1
                        continue
                    }
                    summary.copied += 1
                    if admitted.contains(key) {
                        summary.new += 1
                    } else {
                        let bound = row.scope.isEmpty ? "\(CodeFolding.storeWideLimit) store-wide" : "\(CodeFolding.perPushLimit) for this push"
                        summary.skipped.append(
                            SkippedRow(
                                table: table, rowid: position,
                                problem:
                                    "\(row.kind) '\(row.code)' of \(row.scope.isEmpty ? "the store" : "push '\(row.scope)'") is past PostgreSQL's bound of \(bound) unknown \(row.kind)s (already admitted there): later receipts with it are counted as other"
                            ))
                    }
                }
            }
            read += rows.count
            progress(Progress(table: table, done: read, total: all))
        }
        return summary
    }

    /// Admits codes in PostgreSQL within `CodeFolding`'s bounds, under the admissions' advisory
    /// lock; returns the keys (`scope\u{1}kind\u{1}code`) that were there already and those admitted now.
    private func admit(_ codes: [(String, String, String)]) throws -> (present: Set<String>, admitted: Set<String>) {
        let arrays: [String?] = [
            PostgresArrayLiteral.text(codes.map(\.0)), PostgresArrayLiteral.text(codes.map(\.1)), PostgresArrayLiteral.text(codes.map(\.2)),
        ]
        return try target.write { connection in
            try PostgresStore.inTransaction(connection) {
                try connection.execute("SELECT pg_advisory_xact_lock($1::bigint)", [String(PostgresStore.codesLockKey)])
                func keys(_ result: PostgresResult) -> Set<String> {
                    Set(result.rows { "\(result.text($0, 0) ?? "")\u{1}\(result.text($0, 1) ?? "")\u{1}\(result.text($0, 2) ?? "")" })
                }
                let present = keys(
                    try connection.execute(
                        """
                        SELECT a.scope, a.kind, a.code FROM admitted_codes a
                        JOIN unnest($1::text[], $2::text[], $3::text[]) AS u(scope, kind, code) ON a.scope = u.scope AND a.kind = u.kind AND a.code = u.code
                        """, arrays))
                // New codes ranked within their scope and kind: each takes a place only while one is left.
                let admitted = keys(
                    try connection.execute(
                        """
                        WITH fresh AS (
                            SELECT u.scope, u.kind, u.code, row_number() OVER (PARTITION BY u.scope, u.kind ORDER BY u.code) AS n
                            FROM unnest($1::text[], $2::text[], $3::text[]) AS u(scope, kind, code)
                            WHERE NOT EXISTS (SELECT 1 FROM admitted_codes a WHERE a.scope = u.scope AND a.kind = u.kind AND a.code = u.code)
                        )
                        INSERT INTO admitted_codes (scope, kind, code)
                        SELECT f.scope, f.kind, f.code FROM fresh f
                        WHERE f.n + (SELECT count(*) FROM admitted_codes a WHERE a.scope = f.scope AND a.kind = f.kind)
                              <= CASE WHEN f.scope = '' THEN $4::bigint ELSE $5::bigint END
                        ORDER BY 1, 2, 3
                        ON CONFLICT DO NOTHING RETURNING scope, kind, code
                        """, arrays + [String(CodeFolding.storeWideLimit), String(CodeFolding.perPushLimit)]))
                return (present, admitted)
            }
        }
    }
}
