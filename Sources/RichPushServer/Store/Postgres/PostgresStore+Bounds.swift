import Foundation
import RichPushCore

/// The store's bounds in PostgreSQL (issue 22): the admitted unknown codes (`CodeFolding`,
/// schema version 9) decided under one advisory lock, so the bounds hold across every instance
/// on the database; the push lookup of the per-address budget; the growth figures of `/metrics`.
extension PostgresStore {
    /// The advisory lock key of code admissions ("richpush" + 9).
    static let codesLockKey: Int64 = PostgresSchema.advisoryLockKey + 9

    /// Version 9: `admitted_codes` (see `SQLiteStore.migrateToVersion9`).
    static let migrateToVersion9 = """
        CREATE TABLE IF NOT EXISTS admitted_codes (
            scope text COLLATE "C" NOT NULL,
            kind text NOT NULL,
            code text NOT NULL,
            PRIMARY KEY (scope, kind, code)
        );
        UPDATE richpush_meta SET value = '9' WHERE key = 'schema_version';
        """

    /// The batch with unknown codes past their bounds folded to `other`. A batch that needs a
    /// new admission reads and records `admitted_codes` in a transaction of its own holding
    /// `codesLockKey`, committed before the batch (an admission whose batch then fails stays: it
    /// only uses one of the bounded places); a batch without unknown codes costs no query.
    func foldCodes(_ receipts: [StoredReceipt]) throws -> [StoredReceipt] {
        if CodeFolding.unknownCodes(receipts).isEmpty { return receipts }
        return try write { connection in
            var open = false
            do {
                let folded = try codeAdmissions.fold(
                    receipts,
                    load: { pushIDs in
                        try connection.execute("BEGIN")
                        open = true
                        try connection.execute("SELECT pg_advisory_xact_lock($1::bigint)", [String(Self.codesLockKey)])
                        let rows = try connection.execute(
                            "SELECT scope, kind, code FROM admitted_codes WHERE scope = '' OR scope = ANY($1::text[])", [PostgresArrayLiteral.text(pushIDs)])
                        var admitted = CodeFolding.Admitted()
                        for row in 0..<rows.count {
                            guard let kind = rows.text(row, 1).flatMap(CodeFolding.Kind.init(rawValue:)) else { continue }
                            admitted.add(CodeFolding.Admission(scope: rows.text(row, 0) ?? "", kind: kind, code: rows.text(row, 2) ?? ""))
                        }
                        return admitted
                    },
                    record: { admissions in
                        try connection.execute(
                            "INSERT INTO admitted_codes (scope, kind, code) SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) ON CONFLICT DO NOTHING",
                            [
                                PostgresArrayLiteral.text(admissions.map(\.scope)), PostgresArrayLiteral.text(admissions.map(\.kind.rawValue)),
                                PostgresArrayLiteral.text(admissions.map(\.code)),
                            ])
                    })
                if open { try connection.execute("COMMIT") }
                return folded
            } catch {
                if open && connection.isConnected { _ = try? connection.execute("ROLLBACK") }
                codeAdmissions.forget()
                throw error
            }
        }
    }

    /// Unknown codes this instance stored as `other` since it started.
    public var foldedCodes: Int { codeAdmissions.folded }

    /// Whether `push_index` has the push (one index lookup).
    public func pushExists(_ pushID: String) throws -> Bool {
        try pooled(readOnly: true) { try $0.execute("SELECT 1 FROM push_index WHERE push_id = $1", [pushID]).count > 0 }
    }

    /// Receipts and pushes from `totals` (summed over slots), devices from `pg_class.reltuples`
    /// (the planner's estimate: no scan), bytes `pg_database_size(current_database())`.
    public func growth() throws -> StoreGrowth? {
        try pooled(readOnly: true) { connection in
            let row = try connection.execute(
                """
                SELECT (SELECT COALESCE(sum(receipts), 0) FROM totals), (SELECT COALESCE(sum(pushes), 0) FROM totals),
                  (SELECT GREATEST(COALESCE(max(reltuples), 0), 0)::bigint FROM pg_class WHERE oid = to_regclass('devices')),
                  pg_database_size(current_database())
                """)
            return StoreGrowth(receipts: row.int(0, 0) ?? 0, pushes: row.int(0, 1) ?? 0, devices: row.int(0, 2) ?? 0, bytes: row.int(0, 3) ?? 0)
        }
    }
}
