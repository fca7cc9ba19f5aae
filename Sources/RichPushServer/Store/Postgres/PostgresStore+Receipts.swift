import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Receipt batches in PostgreSQL (`ReceiptStore`): one statement per batch, the summaries
/// updated from the rows it inserted, and the batches `richpush migrate` copies.
extension PostgresStore {
    // MARK: ReceiptStore

    /// The SQL of one batch: receipts in, aggregates and the summaries (`PostgresSchema` version
    /// 3) updated from the rows actually inserted, the inserted keys returned. `$1…$11` are arrays of the receipts' columns in arrival order
    /// (`$11`: the device a receipt names, schema version 10), `$12` the writer connection's counter slot, `$13` the push ids whose
    /// `push_index` row may need adding or an earlier start (the others this instance knows are indexed already).
    static func insertSQL(extraCTE: String = "") -> String {
        """
        WITH input AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[], $9::text[], $10::bigint[],
                                 $11::text[])
                WITH ORDINALITY AS t(push_id, event, receipt_id, outcome, reason, elapsed_ms, media_bytes, media_type, user_agent, received_at_ms, device_id, ord)
        ), inserted AS (
            INSERT INTO receipts (push_id, event, receipt_id, outcome, reason, elapsed_ms, media_bytes, media_type, user_agent, received_at_ms, device_id)
            SELECT push_id, event, receipt_id, outcome, reason, elapsed_ms, media_bytes, media_type, user_agent, received_at_ms, device_id
            FROM input ORDER BY push_id, event, receipt_id, ord
            ON CONFLICT (push_id, event, receipt_id) DO NOTHING
            RETURNING push_id, event, receipt_id, outcome, reason, elapsed_ms, media_bytes, received_at_ms
        ), counts AS (
            INSERT INTO push_counts AS c (push_id, event, outcome, reason, receipts, media_bytes, first_ms, last_ms, slot)
            SELECT push_id, event, COALESCE(outcome, ''), COALESCE(reason, ''), count(*), COALESCE(sum(media_bytes), 0),
                   min(received_at_ms), max(received_at_ms), $12::smallint
            FROM inserted GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
            ON CONFLICT (push_id, event, outcome, reason, slot) DO UPDATE SET receipts = c.receipts + excluded.receipts,
                media_bytes = c.media_bytes + excluded.media_bytes, first_ms = LEAST(c.first_ms, excluded.first_ms),
                last_ms = GREATEST(c.last_ms, excluded.last_ms)
        ), elapsed AS (
            INSERT INTO push_elapsed AS e (push_id, elapsed_ms, receipts, slot)
            SELECT push_id, elapsed_ms, count(*), $12::smallint FROM inserted WHERE event = 'delivered' AND elapsed_ms IS NOT NULL
            GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (push_id, elapsed_ms, slot) DO UPDATE SET receipts = e.receipts + excluded.receipts
        ), starts AS (
            SELECT push_id, min(received_at_ms) AS started FROM inserted WHERE push_id = ANY($13::text[]) GROUP BY push_id
        ), new_pushes AS (
            INSERT INTO push_index (push_id, started_ms)
            SELECT push_id, started FROM starts ORDER BY push_id
            ON CONFLICT (push_id) DO NOTHING
            RETURNING push_id
        ), earlier AS (
            UPDATE push_index AS x SET started_ms = s.started FROM starts AS s
            WHERE x.push_id = ANY($13::text[]) AND x.push_id = s.push_id AND x.started_ms > s.started
        ), batch_totals AS (
            INSERT INTO totals AS t (slot, receipts, delivered, opened, media_attached, with_outcome, with_reason, pushes, first_receipt_ms, last_receipt_ms)
            SELECT $12::smallint, count(*), count(*) FILTER (WHERE event = 'delivered'), count(*) FILTER (WHERE event = 'opened'),
                   count(*) FILTER (WHERE event = 'delivered' AND outcome = 'media_attached'),
                   count(*) FILTER (WHERE event = 'delivered' AND outcome IS NOT NULL),
                   count(*) FILTER (WHERE event = 'delivered' AND reason IS NOT NULL),
                   (SELECT count(*) FROM new_pushes), min(received_at_ms), max(received_at_ms)
            FROM inserted HAVING count(*) > 0
            ON CONFLICT (slot) DO UPDATE SET receipts = t.receipts + excluded.receipts, delivered = t.delivered + excluded.delivered,
                opened = t.opened + excluded.opened, media_attached = t.media_attached + excluded.media_attached,
                with_outcome = t.with_outcome + excluded.with_outcome, with_reason = t.with_reason + excluded.with_reason,
                pushes = t.pushes + excluded.pushes,
                first_receipt_ms = LEAST(t.first_receipt_ms, excluded.first_receipt_ms),
                last_receipt_ms = GREATEST(t.last_receipt_ms, excluded.last_receipt_ms)
        ), batch_reasons AS (
            INSERT INTO reason_totals AS r (reason, slot, receipts)
            SELECT reason, $12::smallint, count(*) FROM inserted WHERE event = 'delivered' AND reason IS NOT NULL
            GROUP BY 1 ORDER BY 1
            ON CONFLICT (reason, slot) DO UPDATE SET receipts = r.receipts + excluded.receipts
        ), batch_elapsed AS (
            INSERT INTO elapsed_totals AS q (elapsed_ms, slot, receipts)
            SELECT \(ElapsedQuantizer.sql), $12::smallint, count(*) FROM inserted WHERE event = 'delivered' AND elapsed_ms IS NOT NULL
            GROUP BY 1 ORDER BY 1
            ON CONFLICT (elapsed_ms, slot) DO UPDATE SET receipts = q.receipts + excluded.receipts
        ), batch_timeline AS (
            INSERT INTO timeline AS l (width_ms, bucket_ms, slot, delivered, opened)
            SELECT w.width, i.received_at_ms / w.width * w.width, $12::smallint,
                   count(*) FILTER (WHERE i.event = 'delivered'), count(*) FILTER (WHERE i.event = 'opened')
            FROM inserted AS i CROSS JOIN (VALUES (1000::bigint), (60000::bigint), (3600000::bigint), (86400000::bigint)) AS w(width)
            WHERE i.event IN ('delivered', 'opened')
            GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (width_ms, bucket_ms, slot) DO UPDATE SET delivered = l.delivered + excluded.delivered, opened = l.opened + excluded.opened
        )\(extraCTE)
        SELECT push_id, event, receipt_id FROM inserted WHERE receipt_id IS NOT NULL
        UNION ALL SELECT push_id, NULL, NULL FROM new_pushes
        """
    }

    private static let batchSQL = insertSQL()

    /// The eleven array parameters of `insertSQL` for a batch, the slot, and the push ids to index.
    static func receiptParameters(_ receipts: [StoredReceipt], slot: Int, index: [String]) -> [String?] {
        var columns = (0..<11).map { _ in PostgresArrayLiteral(reservingCapacity: receipts.count * 16) }
        for stored in receipts {
            let r = stored.receipt
            columns[0].append(r.pushID)
            columns[1].append(r.event.rawValue)
            columns[2].append(r.receiptID)
            columns[3].append(r.outcome?.rawValue)
            columns[4].append(r.reason?.rawValue)
            columns[5].append(r.elapsedMs)
            columns[6].append(r.mediaBytes)
            columns[7].append(r.mediaType)
            columns[8].append(stored.userAgent)
            columns[9].append(stored.receivedAtMs)
            columns[10].append(stored.deviceID)
        }
        return columns.map(\.literal) + [String(slot), PostgresArrayLiteral.text(index)]
    }

    /// Which receipts were new, in order, from the keys the INSERT returned: a receipt without
    /// `receipt_id` always is; of equal keys only the first arrival can be (the SQL inserts them
    /// in arrival order).
    static func newFlags(_ receipts: [StoredReceipt], returned result: PostgresResult) -> [Bool] {
        struct Key: Hashable {
            let pushID: String, event: String, receiptID: String
        }
        var inserted = Set<Key>(minimumCapacity: result.count)
        for row in 0..<result.count where result.text(row, 1) != nil {
            inserted.insert(Key(pushID: result.text(row, 0) ?? "", event: result.text(row, 1) ?? "", receiptID: result.text(row, 2) ?? ""))
        }
        return receipts.map { stored in
            guard let id = stored.receipt.receiptID else { return true }
            return inserted.remove(Key(pushID: stored.receipt.pushID, event: stored.receipt.event.rawValue, receiptID: id)) != nil
        }
    }

    /// Stores a batch in one transaction and returns after its COMMIT (see the type's discussion
    /// and `ReceiptStore.insert(_:)`).
    public func insert(_ receipts: [StoredReceipt]) throws -> [Bool] {
        try insertReportingPushes(receipts).isNew
    }

    /// Stores a batch as `insert(_:)` does, unknown codes past their bounds folded to `other`
    /// first (`CodeFolding`, `foldCodes`), and says which push ids were new.
    public func insertReportingPushes(_ batch: [StoredReceipt]) throws -> ReceiptBatchResult {
        guard !batch.isEmpty else { return ReceiptBatchResult(isNew: [], newPushIDs: []) }
        let receipts = try foldCodes(batch)
        var starts: [String: Int] = [:]
        for stored in receipts { starts[stored.receipt.pushID] = min(starts[stored.receipt.pushID] ?? stored.receivedAtMs, stored.receivedAtMs) }
        let index = knownPushes.withLock { known in starts.filter { entry in known[entry.key].map { entry.value < $0 } ?? true } }
        let result = try write { try $0.execute(Self.batchSQL, Self.receiptParameters(receipts, slot: $0.slot, index: index.keys.sorted()), prepare: true) }
        knownPushes.withLock { known in
            if known.count + index.count > Self.knownPushesLimit { known.removeAll(keepingCapacity: true) }
            for (pushID, started) in index { known[pushID] = min(started, known[pushID] ?? started) }
        }
        pruneTimeline(newestMs: receipts.map(\.receivedAtMs).max() ?? 0)
        var newPushIDs = Set<String>()
        for row in 0..<result.count where result.text(row, 1) == nil {
            if let pushID = result.text(row, 0) { newPushIDs.insert(pushID) }
        }
        return ReceiptBatchResult(isNew: Self.newFlags(receipts, returned: result), newPushIDs: newPushIDs)
    }

    /// Once an hour per instance, drops per-second timeline rows older than 48 h (after the
    /// batch, in a transaction of its own; a failure only leaves them for the next hour).
    private func pruneTimeline(newestMs: Int) {
        let hour = newestMs / 3_600_000
        let due = prunedHour.withLock { prunedHour in
            guard hour != prunedHour else { return false }
            prunedHour = hour
            return true
        }
        guard due else { return }
        _ = try? write {
            try $0.execute("DELETE FROM timeline WHERE width_ms = 1000 AND bucket_ms < $1::bigint", [String(newestMs - TimelinePlan.secondsRetentionMs)])
        }
    }

    /// Copies a batch read from a SQLite store (`richpush migrate`): stored exactly as `insert(_:)`
    /// stores receipts, and in the same transaction the migration's progress for `source` moves to
    /// `lastRowID`, so a re-run resumes after it and copies nothing twice.
    ///
    /// - Returns: how many receipts were new.
    func insertMigrated(_ receipts: [StoredReceipt], source: String, lastRowID: Int) throws -> Int {
        let sql = Self.insertSQL(
            extraCTE: """
                , progress AS (
                    INSERT INTO richpush_migrations AS m (source, item, last_rowid) VALUES ($14, 'receipts', $15)
                    ON CONFLICT (source, item) DO UPDATE SET last_rowid = GREATEST(m.last_rowid, excluded.last_rowid), updated_at = now()
                )
                """)
        let pushIDs = Set(receipts.map(\.receipt.pushID)).sorted()
        let result = try write {
            try $0.execute(sql, Self.receiptParameters(receipts, slot: $0.slot, index: pushIDs) + [source, String(lastRowID)], prepare: true)
        }
        return Self.newFlags(receipts, returned: result).filter { $0 }.count
    }
}
