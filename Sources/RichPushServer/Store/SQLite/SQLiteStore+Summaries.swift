import Foundation
import RichPushCore

/// The summaries of schema version 4, written in the same transaction as what they count, so the
/// dashboard and the push lists never scan a table that grows with the number of pushes or
/// receipts.
///
/// Per write transaction: one `push_index` row per distinct push (insert, or lower its start), one
/// update of the single `totals` row, one upsert per distinct reason, quantized `elapsed_ms` and
/// timeline bucket (second, minute, hour, day). Once an hour, per-second timeline rows older than
/// 48 h are dropped.
/// What the writer remembers about a push it has indexed.
struct KnownPush: Equatable {
    /// When the push started, ms since 1970 (as in `push_index`).
    var startedMs: Int
    /// Whether `pushes` has a row for it (its delivered receipts count for the display rate).
    var hasSend: Bool
}

extension SQLiteStore {
    /// A timeline row's key: stored width and bucket start, in ms.
    private struct TimelineKey: Hashable {
        var widthMs: Int
        var bucketMs: Int
    }

    /// Adds a committed batch's new receipts to the summaries (inside the batch's transaction).
    ///
    /// - Parameters:
    ///   - receipts: the batch.
    ///   - isNew: for each receipt, whether it was stored (not a duplicate).
    ///   - newPushIDs: gets the push ids added to `push_index`.
    /// - Returns: what to remember about the batch's pushes after COMMIT (`remember`).
    /// - Throws: `RichPushError` `store`.
    func updateSummaries(_ receipts: [StoredReceipt], isNew: [Bool], newPushIDs: inout Set<String>) throws -> [String: KnownPush] {
        var firstByPush: [String: Int] = [:]
        var deliveredByPush: [String: Int] = [:]
        var count = 0, delivered = 0, opened = 0, mediaAttached = 0, withOutcome = 0, withReason = 0
        var first = Int.max, last = Int.min
        var reasons: [String: Int] = [:]
        var elapsed: [Int: Int] = [:]
        var timeline: [TimelineKey: (delivered: Int, opened: Int)] = [:]
        for (stored, new) in zip(receipts, isNew) where new {
            let r = stored.receipt
            let ms = stored.receivedAtMs
            count += 1
            first = min(first, ms)
            last = max(last, ms)
            firstByPush[r.pushID] = min(firstByPush[r.pushID] ?? ms, ms)
            let isDelivered = r.event == .delivered
            if isDelivered {
                delivered += 1
                deliveredByPush[r.pushID, default: 0] += 1
                if let outcome = r.outcome {
                    withOutcome += 1
                    if outcome == .mediaAttached { mediaAttached += 1 }
                }
                if let reason = r.reason {
                    withReason += 1
                    reasons[reason.rawValue, default: 0] += 1
                }
                if let value = r.elapsedMs { elapsed[ElapsedQuantizer.bucket(value), default: 0] += 1 }
            } else if r.event == .opened {
                opened += 1
            }
            guard isDelivered || r.event == .opened else { continue }
            for width in TimelinePlan.storedWidthsMs {
                let key = TimelineKey(widthMs: width, bucketMs: TimelinePlan.floor(ms, width))
                var value = timeline[key] ?? (0, 0)
                if isDelivered { value.delivered += 1 } else { value.opened += 1 }
                timeline[key] = value
            }
        }
        guard count > 0 else { return [:] }

        var newPushes = 0
        var deliveredOfSent = 0
        var indexed: [String: KnownPush] = [:]
        let hasSend = try writer.prepared("SELECT 1 FROM pushes WHERE push_id = ?")
        for (pushID, started) in firstByPush {
            var known = knownPushes[pushID]
            if known == nil || started < known?.startedMs ?? started {
                if try indexPush(pushID, startedMs: started) {
                    newPushes += 1
                    newPushIDs.insert(pushID)
                }
                if var k = known {
                    k.startedMs = started
                    known = k
                } else {
                    hasSend.reset()
                    try hasSend.bind([.text(pushID)])
                    known = KnownPush(startedMs: started, hasSend: try !hasSend.rows({ _ in true }).isEmpty)
                }
                indexed[pushID] = known
            }
            if let n = deliveredByPush[pushID], known?.hasSend == true { deliveredOfSent += n }
        }
        let totals = try writer.prepared(
            """
            UPDATE totals SET receipts = receipts + ?, delivered = delivered + ?, opened = opened + ?,
              media_attached = media_attached + ?, with_outcome = with_outcome + ?, with_reason = with_reason + ?,
              delivered_of_sent = delivered_of_sent + ?, pushes = pushes + ?,
              first_receipt_ms = MIN(COALESCE(first_receipt_ms, ?), ?), last_receipt_ms = MAX(COALESCE(last_receipt_ms, ?), ?)
            WHERE id = 1
            """
        )
        try totals.bind([
            .integer(count), .integer(delivered), .integer(opened), .integer(mediaAttached), .integer(withOutcome), .integer(withReason),
            .integer(deliveredOfSent), .integer(newPushes), .integer(first), .integer(first), .integer(last), .integer(last),
        ])
        try totals.run()

        let reasonUpsert = try writer.prepared(
            "INSERT INTO reason_totals (reason, receipts) VALUES (?, ?) ON CONFLICT (reason) DO UPDATE SET receipts = receipts + excluded.receipts"
        )
        for (reason, n) in reasons {
            reasonUpsert.reset()
            try reasonUpsert.bind([.text(reason), .integer(n)])
            try reasonUpsert.run()
        }
        let elapsedUpsert = try writer.prepared(
            "INSERT INTO elapsed_totals (elapsed_ms, receipts) VALUES (?, ?) ON CONFLICT (elapsed_ms) DO UPDATE SET receipts = receipts + excluded.receipts"
        )
        for (value, n) in elapsed {
            elapsedUpsert.reset()
            try elapsedUpsert.bind([.integer(value), .integer(n)])
            try elapsedUpsert.run()
        }
        let timelineUpsert = try writer.prepared(
            """
            INSERT INTO timeline (width_ms, bucket_ms, delivered, opened) VALUES (?, ?, ?, ?)
            ON CONFLICT (width_ms, bucket_ms) DO UPDATE SET delivered = delivered + excluded.delivered, opened = opened + excluded.opened
            """
        )
        for (key, value) in timeline {
            timelineUpsert.reset()
            try timelineUpsert.bind([.integer(key.widthMs), .integer(key.bucketMs), .integer(value.delivered), .integer(value.opened)])
            try timelineUpsert.run()
        }
        let hour = last / 3_600_000
        if hour != prunedHour {
            let prune = try writer.prepared("DELETE FROM timeline WHERE width_ms = 1000 AND bucket_ms < ?")
            try prune.bind([.integer(last - TimelinePlan.secondsRetentionMs)])
            try prune.run()
            prunedHour = hour
        }
        return indexed
    }

    /// Records pushes a committed transaction put in `push_index` (under the write lock).
    func remember(_ indexed: [String: KnownPush]) {
        guard !indexed.isEmpty else { return }
        if knownPushes.count + indexed.count > Self.knownPushesLimit { knownPushes.removeAll(keepingCapacity: true) }
        for (pushID, started) in indexed { knownPushes[pushID] = started }
    }

    /// Adds a send to the summaries (inside `recordSend`'s transaction, before `pushes` is written).
    ///
    /// - Parameters:
    ///   - send: the send.
    ///   - sent: tokens APNs answered.
    ///   - accepted: tokens APNs accepted.
    /// - Returns: what to remember about the push after COMMIT (`remember`).
    /// - Throws: `RichPushError` `store`.
    func updateSummaries(_ send: PushSendRecord, sent: Int, accepted: Int) throws -> [String: KnownPush] {
        let hasSend = try writer.prepared("SELECT 1 FROM pushes WHERE push_id = ?")
        try hasSend.bind([.text(send.pushID)])
        let firstSend = try hasSend.rows({ _ in true }).isEmpty
        var deliveredBefore = 0
        if firstSend {
            // From now on this push's delivered receipts count towards the display rate.
            let delivered = try writer.prepared("SELECT COALESCE(SUM(receipts), 0) FROM push_counts WHERE push_id = ? AND event = 'delivered'")
            try delivered.bind([.text(send.pushID)])
            deliveredBefore = try delivered.rows { $0.int(0) ?? 0 }.first ?? 0
        }
        let newPush = try indexPush(send.pushID, startedMs: send.sentAtMs)
        let totals = try writer.prepared(
            "UPDATE totals SET sent = sent + ?, accepted = accepted + ?, delivered_of_sent = delivered_of_sent + ?, pushes = pushes + ? WHERE id = 1"
        )
        try totals.bind([.integer(sent), .integer(accepted), .integer(deliveredBefore), .integer(newPush ? 1 : 0)])
        try totals.run()
        let started = min(send.sentAtMs, knownPushes[send.pushID]?.startedMs ?? send.sentAtMs)
        return [send.pushID: KnownPush(startedMs: started, hasSend: true)]
    }

    /// Adds a push to `push_index` or moves its start earlier.
    ///
    /// - Returns: `true` when the push was not known before.
    private func indexPush(_ pushID: String, startedMs: Int) throws -> Bool {
        let insert = try writer.prepared("INSERT INTO push_index (push_id, started_ms) VALUES (?, ?) ON CONFLICT (push_id) DO NOTHING")
        try insert.bind([.text(pushID), .integer(startedMs)])
        try insert.run()
        if writer.changes == 1 { return true }
        let lower = try writer.prepared("UPDATE push_index SET started_ms = ? WHERE push_id = ? AND started_ms > ?")
        try lower.bind([.integer(startedMs), .text(pushID), .integer(startedMs)])
        try lower.run()
        return false
    }

    /// Version 4: the summaries, filled from the receipts, counts and sends already stored (one
    /// pass, inside `migrate`'s transaction; on a new file there is nothing to fill).
    static func migrateToVersion4(_ db: SQLiteConnection) throws {
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS push_index (
                push_id TEXT PRIMARY KEY,
                started_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS push_index_started ON push_index (started_ms, push_id);
            CREATE TABLE IF NOT EXISTS totals (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                receipts INTEGER NOT NULL DEFAULT 0,
                delivered INTEGER NOT NULL DEFAULT 0,
                opened INTEGER NOT NULL DEFAULT 0,
                media_attached INTEGER NOT NULL DEFAULT 0,
                with_outcome INTEGER NOT NULL DEFAULT 0,
                with_reason INTEGER NOT NULL DEFAULT 0,
                sent INTEGER NOT NULL DEFAULT 0,
                accepted INTEGER NOT NULL DEFAULT 0,
                delivered_of_sent INTEGER NOT NULL DEFAULT 0,
                pushes INTEGER NOT NULL DEFAULT 0,
                first_receipt_ms INTEGER,
                last_receipt_ms INTEGER
            );
            CREATE TABLE IF NOT EXISTS reason_totals (
                reason TEXT PRIMARY KEY,
                receipts INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS reason_totals_by_count ON reason_totals (receipts DESC, reason);
            CREATE TABLE IF NOT EXISTS elapsed_totals (
                elapsed_ms INTEGER PRIMARY KEY,
                receipts INTEGER NOT NULL
            );
            CREATE TABLE IF NOT EXISTS timeline (
                width_ms INTEGER NOT NULL,
                bucket_ms INTEGER NOT NULL,
                delivered INTEGER NOT NULL,
                opened INTEGER NOT NULL,
                PRIMARY KEY (width_ms, bucket_ms)
            ) WITHOUT ROWID;
            DELETE FROM push_index;
            DELETE FROM totals;
            DELETE FROM reason_totals;
            DELETE FROM elapsed_totals;
            DELETE FROM timeline;
            INSERT INTO push_index (push_id, started_ms)
              SELECT push_id, MIN(ms) FROM (
                SELECT push_id, MIN(first_ms) AS ms FROM push_counts GROUP BY push_id
                UNION ALL SELECT push_id, COALESCE(first_sent_at_ms, last_sent_at_ms, 0) FROM pushes
              ) GROUP BY push_id;
            INSERT INTO totals (id, receipts, delivered, opened, media_attached, with_outcome, with_reason, sent, accepted,
                                delivered_of_sent, pushes, first_receipt_ms, last_receipt_ms)
              SELECT 1,
                (SELECT COALESCE(SUM(receipts), 0) FROM push_counts),
                (SELECT COALESCE(SUM(receipts), 0) FROM push_counts WHERE event = 'delivered'),
                (SELECT COALESCE(SUM(receipts), 0) FROM push_counts WHERE event = 'opened'),
                (SELECT COALESCE(SUM(receipts), 0) FROM push_counts WHERE event = 'delivered' AND outcome = 'media_attached'),
                (SELECT COALESCE(SUM(receipts), 0) FROM push_counts WHERE event = 'delivered' AND outcome != ''),
                (SELECT COALESCE(SUM(receipts), 0) FROM push_counts WHERE event = 'delivered' AND reason != ''),
                (SELECT COALESCE(SUM(sent), 0) FROM pushes),
                (SELECT COALESCE(SUM(accepted), 0) FROM pushes),
                (SELECT COALESCE(SUM(c.receipts), 0) FROM push_counts c JOIN pushes p ON p.push_id = c.push_id WHERE c.event = 'delivered'),
                (SELECT COUNT(*) FROM push_index),
                (SELECT MIN(first_ms) FROM push_counts),
                (SELECT MAX(last_ms) FROM push_counts);
            INSERT INTO reason_totals (reason, receipts)
              SELECT reason, SUM(receipts) FROM push_counts WHERE event = 'delivered' AND reason != '' GROUP BY reason;
            INSERT INTO elapsed_totals (elapsed_ms, receipts)
              SELECT \(ElapsedQuantizer.sql), SUM(receipts) FROM push_elapsed GROUP BY 1;
            INSERT INTO timeline (width_ms, bucket_ms, delivered, opened)
              SELECT 60000, received_at_ms / 60000 * 60000, SUM(event = 'delivered'), SUM(event = 'opened') FROM receipts GROUP BY 2;
            INSERT INTO timeline (width_ms, bucket_ms, delivered, opened)
              SELECT 3600000, received_at_ms / 3600000 * 3600000, SUM(event = 'delivered'), SUM(event = 'opened') FROM receipts GROUP BY 2;
            INSERT INTO timeline (width_ms, bucket_ms, delivered, opened)
              SELECT 86400000, received_at_ms / 86400000 * 86400000, SUM(event = 'delivered'), SUM(event = 'opened') FROM receipts GROUP BY 2;
            INSERT INTO timeline (width_ms, bucket_ms, delivered, opened)
              SELECT 1000, received_at_ms / 1000 * 1000, SUM(event = 'delivered'), SUM(event = 'opened') FROM receipts
              WHERE received_at_ms >= (SELECT MAX(received_at_ms) FROM receipts) - \(TimelinePlan.secondsRetentionMs) GROUP BY 2;
            """
        )
    }
}
