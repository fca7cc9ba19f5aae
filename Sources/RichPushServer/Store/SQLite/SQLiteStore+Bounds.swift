import CSQLite
import Foundation
import RichPushCore

/// The store's bounds (issue 22): the admitted unknown codes (`CodeFolding`, schema version 9),
/// the push lookup of the per-address budget, and the growth figures of `/metrics`.
extension SQLiteStore {
    /// Version 9: `admitted_codes`, the unknown outcome and reason codes kept as they are
    /// (scope `''` = store-wide, else a push id); an existing store starts with none admitted.
    static func migrateToVersion9(_ db: SQLiteConnection) throws {
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS admitted_codes (
                scope TEXT NOT NULL,
                kind TEXT NOT NULL,
                code TEXT NOT NULL,
                PRIMARY KEY (scope, kind, code)
            ) WITHOUT ROWID;
            """
        )
    }

    /// The batch with unknown codes past their bounds folded to `other`, new admissions
    /// recorded (inside the batch's transaction, under the write lock: exact, one writer).
    func foldCodes(_ receipts: [StoredReceipt]) throws -> [StoredReceipt] {
        try codeAdmissions.fold(
            receipts,
            load: { pushIDs in
                var admitted = CodeFolding.Admitted()
                let select = try writer.prepared("SELECT kind, code FROM admitted_codes WHERE scope = ?")
                for scope in [""] + pushIDs {
                    select.reset()
                    try select.bind([.text(scope)])
                    for (kind, code) in try select.rows({ ($0.text(0) ?? "", $0.text(1) ?? "") }) {
                        guard let kind = CodeFolding.Kind(rawValue: kind) else { continue }
                        admitted.add(CodeFolding.Admission(scope: scope, kind: kind, code: code))
                    }
                }
                return admitted
            },
            record: { admissions in
                let insert = try writer.prepared("INSERT INTO admitted_codes (scope, kind, code) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
                for admission in admissions {
                    insert.reset()
                    try insert.bind([.text(admission.scope), .text(admission.kind.rawValue), .text(admission.code)])
                    try insert.run()
                }
            })
    }

    /// Unknown codes stored as `other` since the store opened.
    public var foldedCodes: Int { codeAdmissions.folded }

    /// Whether `push_index` has the push (one index lookup on a read connection).
    public func pushExists(_ pushID: String) throws -> Bool {
        try readers.withConnection { db in
            let query = try db.prepared("SELECT 1 FROM push_index WHERE push_id = ?")
            try query.bind([.text(pushID)])
            return try !query.rows({ _ in true }).isEmpty
        }
    }

    /// Receipts and pushes from `totals`, devices as `MAX(rowid)`, bytes as `page_count ×
    /// page_size` plus the WAL file's size: a few page reads, whatever the store holds.
    public func growth() throws -> StoreGrowth? {
        try readers.withConnection { db in
            let totals = try db.prepared("SELECT receipts, pushes FROM totals WHERE id = 1").rows { ($0.int(0) ?? 0, $0.int(1) ?? 0) }.first ?? (0, 0)
            let devices = try db.prepared("SELECT COALESCE(MAX(rowid), 0) FROM devices").rows { $0.int(0) ?? 0 }.first ?? 0
            let pages = try db.prepared("PRAGMA page_count").rows { $0.int(0) ?? 0 }.first ?? 0
            let pageSize = try db.prepared("PRAGMA page_size").rows { $0.int(0) ?? 0 }.first ?? 0
            var info = stat()
            let wal = stat(path + "-wal", &info) == 0 ? Int(info.st_size) : 0
            return StoreGrowth(receipts: totals.0, pushes: totals.1, devices: devices, bytes: pages * pageSize + wal)
        }
    }
}
