import CSQLite
import Foundation
import RichPushCore

/// Campaigns in SQLite (`CampaignStore`, schema version 7): the same tables as PostgreSQL's,
/// written under the write lock (one process writes the file), each step committed and synced
/// before it returns.
extension SQLiteStore: CampaignStore {
    /// Version 7: campaigns, their targets and chunks, the throttle's budget, device tags
    /// (inside `migrate`'s transaction).
    static func migrateToVersion7(_ db: SQLiteConnection) throws {
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS campaigns (
              campaign_id TEXT PRIMARY KEY,
              push_id TEXT NOT NULL,
              state TEXT NOT NULL,
              title TEXT,
              payload TEXT NOT NULL,
              topic TEXT NOT NULL,
              push_type TEXT NOT NULL,
              priority INTEGER,
              expiration INTEGER,
              collapse_id TEXT NOT NULL,
              provider TEXT,
              audience TEXT NOT NULL,
              send_at_ms INTEGER NOT NULL,
              per_minute INTEGER,
              targets INTEGER NOT NULL DEFAULT 0,
              sent INTEGER NOT NULL DEFAULT 0,
              accepted INTEGER NOT NULL DEFAULT 0,
              skipped INTEGER NOT NULL DEFAULT 0,
              failed INTEGER NOT NULL DEFAULT 0,
              in_flight INTEGER NOT NULL DEFAULT 0,
              resent_after_crash INTEGER NOT NULL DEFAULT 0,
              created_at_ms INTEGER NOT NULL,
              started_at_ms INTEGER,
              finished_at_ms INTEGER,
              last_error TEXT,
              idempotency_key TEXT UNIQUE
            );
            CREATE INDEX IF NOT EXISTS campaigns_created ON campaigns (created_at_ms, campaign_id);
            CREATE INDEX IF NOT EXISTS campaigns_state ON campaigns (state, send_at_ms);
            CREATE TABLE IF NOT EXISTS campaign_chunks (
              campaign_id TEXT NOT NULL,
              chunk INTEGER NOT NULL,
              state TEXT NOT NULL,
              owner TEXT,
              lease_until_ms INTEGER NOT NULL DEFAULT 0,
              PRIMARY KEY (campaign_id, chunk)
            );
            CREATE INDEX IF NOT EXISTS campaign_chunks_open ON campaign_chunks (campaign_id, chunk) WHERE state <> 'done';
            CREATE TABLE IF NOT EXISTS campaign_targets (
              campaign_id TEXT NOT NULL,
              chunk INTEGER NOT NULL,
              device_token TEXT NOT NULL,
              provider TEXT NOT NULL,
              state TEXT NOT NULL,
              outcome TEXT,
              status INTEGER,
              reason TEXT,
              attempts INTEGER NOT NULL DEFAULT 0,
              PRIMARY KEY (campaign_id, chunk, device_token)
            );
            CREATE TABLE IF NOT EXISTS campaign_budget (
              campaign_id TEXT NOT NULL,
              second INTEGER NOT NULL,
              used INTEGER NOT NULL,
              PRIMARY KEY (campaign_id, second)
            );
            CREATE TABLE IF NOT EXISTS device_tags (
              device_token TEXT NOT NULL,
              tag TEXT NOT NULL,
              PRIMARY KEY (device_token, tag)
            );
            CREATE INDEX IF NOT EXISTS device_tags_tag ON device_tags (tag, device_token);
            """)
    }

    /// Runs `body` in one write transaction, committed and synced before returning; the pushes
    /// a funnel record in it indexed (`indexed`) are remembered after the commit.
    private func campaignWriteIndexing<T>(_ body: (SQLiteConnection, _ indexed: inout [String: KnownPush]) throws -> T) throws -> T {
        writeLock.lock()
        defer { writeLock.unlock() }
        try ensureOpen()
        try writer.execute("BEGIN IMMEDIATE")
        let result: T
        var indexed: [String: KnownPush] = [:]
        do {
            result = try body(writer, &indexed)
            try writer.execute("COMMIT")
            remember(indexed)
            announceCommitted()
        } catch {
            try? writer.execute("ROLLBACK")
            pendingChanges = []
            knownPushes.removeAll()
            throw error
        }
        try syncCommitted()
        return result
    }

    private static func record(_ s: SQLiteStatement) -> CampaignRecord {
        CampaignRecord(text: { s.text(Int32($0)) }, int: { s.int(Int32($0)) })
    }

    private static func readCampaign(_ db: SQLiteConnection, _ id: String) throws -> CampaignRecord? {
        let query = try db.prepared("SELECT \(CampaignRecord.columns) FROM campaigns WHERE campaign_id = ?")
        try query.bind([.text(id)])
        return try query.rows(record).first
    }

    private static func jsonArray(_ values: [String]) -> SQLiteValue {
        .text(String(decoding: RichPushJSONValue.array(values.map(RichPushJSONValue.string)).jsonData(), as: UTF8.self))
    }

    /// See `CampaignStore.createCampaign(_:webhooks:)`.
    public func createCampaign(_ draft: CampaignDraft, webhooks: WebhookSettings?) throws -> (campaign: CampaignRecord, created: Bool) {
        try writeTransaction { db in
            if let key = draft.idempotencyKey {
                let existing = try db.prepared("SELECT \(CampaignRecord.columns) FROM campaigns WHERE idempotency_key = ?")
                try existing.bind([.text(key)])
                if let found = try existing.rows(Self.record).first { return (found, false) }
            }
            let insert = try db.prepared(
                """
                INSERT INTO campaigns (campaign_id, push_id, state, title, payload, topic, push_type, priority, expiration, collapse_id, provider,
                  audience, send_at_ms, per_minute, created_at_ms, started_at_ms, idempotency_key, queue_priority, media_report, test_share,
                  test_window_ms, winner_by, attribution_ms, variant_count)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let running = draft.sendAtMs <= draft.createdAtMs
            try insert.bind([
                .text(draft.id), .text(draft.pushID), .text(running ? "running" : "scheduled"), .optional(draft.title), .text(draft.payload),
                .text(draft.topic), .text(draft.pushType), .optional(draft.priority), .optional(draft.expiration), .text(draft.collapseID),
                .optional(draft.provider), .text(draft.audience.kind), .integer(draft.sendAtMs), .optional(draft.perMinute),
                .integer(draft.createdAtMs), running ? .integer(draft.createdAtMs) : .null, .optional(draft.idempotencyKey),
                .integer(draft.queuePriority), .optional(draft.mediaReport), .optional(draft.testSharePercent), .optional(draft.testWindowMs),
                .optional(draft.winnerBy), .optional(draft.attributionMs), .integer(draft.variants.count),
            ])
            try insert.run()
            let variant = try db.prepared(
                "INSERT INTO campaign_variants (campaign_id, variant, push_id, title, payload, weight, media_report) VALUES (?, ?, ?, ?, ?, ?, ?)")
            for v in draft.variants {
                variant.reset()
                try variant.bind([
                    .text(draft.id), .text(v.name), .text(v.pushID), .optional(v.title), .text(v.payload), .integer(v.weight), .optional(v.mediaReport),
                ])
                try variant.run()
            }
            // The snapshot: one INSERT … SELECT in SQLite (?1 … ?4 come first, so the source's
            // own `?`s are numbered 5, 6, … in the order of `values`) (no token list in this
            // process's memory beyond the request's own), numbered into chunks in token order
            // (`CampaignSnapshotPlan`: the test's targets, with their variants, then the rest).
            let plan = CampaignSnapshotPlan(draft)
            let providerFilter = draft.provider == nil ? "" : " AND d.provider = ?"
            var values: [SQLiteValue] = [.text(draft.id), .integer(plan.chunkSize), .integer(plan.testPercent), .integer(draft.variants.count)]
            let source: String
            switch draft.audience {
            case .tokens(let tokens):
                source = "SELECT CAST(j.key AS INTEGER) AS n, j.value AS token, ? AS provider FROM json_each(?) j"
                values += [.text(draft.provider ?? "apns"), Self.jsonArray(tokens)]
            case .userIDs(let ids):
                source =
                    "SELECT NULL AS n, d.device_token AS token, d.provider AS provider FROM devices d WHERE d.user_id IN (SELECT value FROM json_each(?))\(providerFilter)"
                values.append(Self.jsonArray(ids))
            case .all(let platform):
                source =
                    "SELECT NULL AS n, d.device_token AS token, d.provider AS provider FROM devices d WHERE 1 = 1\(platform == nil ? "" : " AND d.platform = ?")\(providerFilter)"
                if let platform { values.append(.text(platform)) }
            case .tagsAny(let tags):
                source =
                    "SELECT NULL AS n, d.device_token AS token, d.provider AS provider FROM devices d WHERE d.device_token IN (SELECT device_token FROM device_tags WHERE tag IN (SELECT value FROM json_each(?)))\(providerFilter)"
                values.append(Self.jsonArray(tags))
            }
            if let provider = draft.provider, draft.audience.kind != "tokens" { values.append(.text(provider)) }
            let snapshot = try db.prepared(
                """
                INSERT INTO campaign_targets (campaign_id, chunk, device_token, provider, state, variant)
                SELECT ?1, \(plan.chunkExpression(test: "r.m")), r.token, r.provider, 'pending', \(plan.variantExpression(test: "r.m"))
                FROM (SELECT q.*, MAX(MIN(q.total, ?4), q.total * ?3 / 100) AS m FROM (
                  SELECT s.token, s.provider, ROW_NUMBER() OVER (ORDER BY s.n, s.token) AS rn, COUNT(*) OVER () AS total FROM (\(source)) s) q) r
                """)
            try snapshot.bind(values)
            try snapshot.run()
            let count = db.changes
            let chunks = try db.prepared(
                """
                INSERT INTO campaign_chunks (campaign_id, chunk, state, phase)
                SELECT campaign_id, chunk, 'pending', \(plan.phaseExpression) FROM campaign_targets WHERE campaign_id = ? GROUP BY campaign_id, chunk
                """)
            try chunks.bind([.text(draft.id)])
            try chunks.run()
            let update = try db.prepared(
                "UPDATE campaigns SET targets = ?, state = CASE WHEN ? = 0 AND state = 'running' THEN 'finished' ELSE state END, finished_at_ms = CASE WHEN ? = 0 AND state = 'running' THEN created_at_ms END WHERE campaign_id = ?"
            )
            try update.bind([.integer(count), .integer(count), .integer(count), .text(draft.id)])
            try update.run()
            guard let stored = try Self.readCampaign(db, draft.id) else {
                throw RichPushError(code: .store, message: "the campaign vanished while it was created; retry")
            }
            if count == 0, stored.state == "finished", let webhooks {
                try insertWebhookDeliveries(webhooks.campaignEndDeliveries([stored], atMs: draft.createdAtMs))
            }
            // Idle workers look at once (after the COMMIT).
            pendingChanges.insert(.campaigns)
            return (stored, true)
        }
    }

    /// See `CampaignStore.campaignVariants(_:)`.
    public func campaignVariants(_ id: String) throws -> [CampaignVariant] {
        try reading { try Self.readVariants($0, id) }
    }

    private static func readVariants(_ db: SQLiteConnection, _ id: String) throws -> [CampaignVariant] {
        let query = try db.prepared("SELECT \(CampaignVariant.columns) FROM campaign_variants WHERE campaign_id = ? ORDER BY variant")
        try query.bind([.text(id)])
        return try query.rows { s in CampaignVariant(text: { s.text(Int32($0)) }, int: { s.int(Int32($0)) }) }
    }

    /// See `CampaignStore.campaign(_:)`.
    public func campaign(_ id: String) throws -> CampaignRecord? {
        try reading { try Self.readCampaign($0, id) }
    }

    /// See `CampaignStore.campaigns(limit:before:)`.
    public func campaigns(limit: Int, before: String?) throws -> [CampaignRecord] {
        try reading { db in
            let query: SQLiteStatement
            if let before {
                query = try db.prepared(
                    """
                    SELECT \(CampaignRecord.columns) FROM campaigns
                    WHERE (created_at_ms, campaign_id) < (SELECT created_at_ms, campaign_id FROM campaigns WHERE campaign_id = ?)
                    ORDER BY created_at_ms DESC, campaign_id DESC LIMIT ?
                    """)
                try query.bind([.text(before), .integer(limit)])
            } else {
                query = try db.prepared("SELECT \(CampaignRecord.columns) FROM campaigns ORDER BY created_at_ms DESC, campaign_id DESC LIMIT ?")
                try query.bind([.integer(limit)])
            }
            return try query.rows(Self.record)
        }
    }

    /// See `CampaignStore.cancelCampaign(_:atMs:webhooks:)`.
    public func cancelCampaign(_ id: String, atMs: Int, webhooks: WebhookSettings?) throws -> CampaignRecord? {
        try writeTransaction { db in
            let update = try db.prepared(
                "UPDATE campaigns SET state = 'cancelled', finished_at_ms = ? WHERE campaign_id = ? AND state IN ('scheduled', 'running')")
            try update.bind([.integer(atMs), .text(id)])
            try update.run()
            let cancelled = db.changes == 1
            let campaign = try Self.readCampaign(db, id)
            if cancelled, let campaign, let webhooks {
                try insertWebhookDeliveries(webhooks.campaignEndDeliveries([campaign], atMs: atMs))
            }
            return campaign
        }
    }

    /// Writes `campaign.finished` for the campaigns a finishing `UPDATE … RETURNING campaign_id`
    /// just changed (inside its transaction).
    private func reportFinished(_ db: SQLiteConnection, _ finish: SQLiteStatement, nowMs: Int, webhooks: WebhookSettings?) throws {
        let ids = try finish.rows { $0.text(0) ?? "" }
        guard let webhooks, webhooks.wants(.campaignFinished), !ids.isEmpty else { return }
        let finished = try ids.compactMap { try Self.readCampaign(db, $0) }
        try insertWebhookDeliveries(webhooks.campaignEndDeliveries(finished, atMs: nowMs))
    }

    /// See `CampaignStore.advanceCampaigns(nowMs:webhooks:)`.
    public func advanceCampaigns(nowMs: Int, webhooks: WebhookSettings?) throws {
        // Idle (no campaign scheduled or running): a read, no write transaction or sync.
        guard try hasCampaigns(in: ["scheduled", "running"]) else { return }
        try writeTransaction { db in
            let start = try db.prepared(
                "UPDATE campaigns SET state = 'running', started_at_ms = ? WHERE state = 'scheduled' AND send_at_ms <= ?")
            try start.bind([.integer(nowMs), .integer(nowMs)])
            try start.run()
            if db.changes > 0 { pendingChanges.insert(.campaigns) }
            let finish = try db.prepared(
                """
                UPDATE campaigns SET state = 'finished', finished_at_ms = ? WHERE state = 'running'
                  AND NOT EXISTS (SELECT 1 FROM campaign_chunks k WHERE k.campaign_id = campaigns.campaign_id AND k.state <> 'done')
                RETURNING campaign_id
                """)
            try finish.bind([.integer(nowMs)])
            try reportFinished(db, finish, nowMs: nowMs, webhooks: webhooks)
        }
    }

    /// Whether a campaign is in one of `states` (an index lookup on a reader): the idle workers'
    /// polls cost no write transaction and no fsync.
    private func hasCampaigns(in states: [String]) throws -> Bool {
        try reading { db in
            let query = try db.prepared("SELECT 1 FROM campaigns WHERE state IN (SELECT value FROM json_each(?)) LIMIT 1")
            try query.bind([Self.jsonArray(states)])
            return try !query.rows { _ in true }.isEmpty
        }
    }

    /// See `CampaignStore.campaignsAwaitingWinner(nowMs:)`.
    public func campaignsAwaitingWinner(nowMs: Int) throws -> [CampaignRecord] {
        try reading { db in
            let query = try db.prepared(
                """
                SELECT \(CampaignRecord.columns) FROM campaigns c WHERE c.state = 'running' AND c.test_share IS NOT NULL AND c.winner IS NULL
                  AND c.started_at_ms + COALESCE(c.test_window_ms, 0) <= ?
                  AND NOT EXISTS (SELECT 1 FROM campaign_chunks k WHERE k.campaign_id = c.campaign_id AND k.phase = 'test' AND k.state <> 'done')
                """)
            try query.bind([.integer(nowMs)])
            return try query.rows(Self.record)
        }
    }

    /// See `CampaignStore.setCampaignWinner(_:variant:nowMs:)`.
    @discardableResult
    public func setCampaignWinner(_ id: String, variant: String, nowMs: Int) throws -> Bool {
        try writeTransaction { db in
            let set = try db.prepared("UPDATE campaigns SET winner = ?, winner_at_ms = ? WHERE campaign_id = ? AND winner IS NULL")
            try set.bind([.text(variant), .integer(nowMs), .text(id)])
            try set.run()
            guard db.changes == 1 else { return false }
            pendingChanges.insert(.campaigns)
            return true
        }
    }

    /// See `CampaignStore.claimCampaignChunk(owner:nowMs:leaseMs:)`: the campaign whose turn it
    /// is (priority, then the one claimed longest ago), its first free chunk.
    public func claimCampaignChunk(owner: String, nowMs: Int, leaseMs: Int) throws -> CampaignChunk? {
        guard try hasCampaigns(in: ["running"]) else { return nil }
        return try writeTransaction { db in
            let free = try db.prepared(
                """
                SELECT k.campaign_id, k.chunk FROM campaigns c JOIN campaign_chunks k ON k.campaign_id = c.campaign_id
                WHERE c.state = 'running' AND c.next_claim_ms <= ?1 AND k.state <> 'done' AND (k.state = 'pending' OR k.lease_until_ms <= ?1)
                  AND (k.phase <> 'rest' OR c.winner IS NOT NULL)
                ORDER BY c.queue_priority DESC, c.last_claim_ms, c.created_at_ms, c.campaign_id, k.chunk LIMIT 1
                """)
            try free.bind([.integer(nowMs)])
            guard let (campaignID, chunk) = try free.rows({ ($0.text(0) ?? "", $0.int(1) ?? 0) }).first else { return nil }
            let lease = try db.prepared("UPDATE campaign_chunks SET state = 'leased', owner = ?, lease_until_ms = ? WHERE campaign_id = ? AND chunk = ?")
            try lease.bind([.text(owner), .integer(nowMs + leaseMs), .text(campaignID), .integer(chunk)])
            try lease.run()
            // Its turn is taken: equal priorities go to the others first.
            let turn = try db.prepared("UPDATE campaigns SET last_claim_ms = MAX(last_claim_ms + 1, ?) WHERE campaign_id = ?")
            try turn.bind([.integer(nowMs), .text(campaignID)])
            try turn.run()
            guard let campaign = try Self.readCampaign(db, campaignID) else { return nil }
            let targets = try db.prepared(
                "SELECT device_token, provider, state, variant FROM campaign_targets WHERE campaign_id = ? AND chunk = ? AND state <> 'done' ORDER BY device_token"
            )
            try targets.bind([.text(campaignID), .integer(chunk)])
            let list = try targets.rows {
                CampaignChunk.Target(token: $0.text(0) ?? "", provider: $0.text(1) ?? "apns", wasInFlight: $0.text(2) == "in_flight", variant: $0.text(3))
            }
            let variants = campaign.hasVariants ? try Self.readVariants(db, campaignID) : []
            return CampaignChunk(campaign: campaign, chunk: chunk, owner: owner, targets: list, variants: variants)
        }
    }

    /// See `CampaignStore.markCampaignTargetsInFlight(_:tokens:nowMs:leaseMs:)`.
    public func markCampaignTargetsInFlight(_ chunk: CampaignChunk, tokens: [String], nowMs: Int, leaseMs: Int) throws -> [String]? {
        try writeTransaction { db in
            let renew = try db.prepared(
                """
                UPDATE campaign_chunks SET lease_until_ms = ? WHERE campaign_id = ? AND chunk = ? AND owner = ? AND state = 'leased'
                  AND EXISTS (SELECT 1 FROM campaigns c WHERE c.campaign_id = campaign_chunks.campaign_id AND c.state = 'running')
                """)
            try renew.bind([.integer(nowMs + leaseMs), .text(chunk.campaign.id), .integer(chunk.chunk), .text(chunk.owner)])
            try renew.run()
            guard db.changes == 1 else { return nil }
            let state = try db.prepared("SELECT state FROM campaign_targets WHERE campaign_id = ? AND chunk = ? AND device_token = ?")
            let mark = try db.prepared(
                "UPDATE campaign_targets SET state = 'in_flight', attempts = attempts + 1 WHERE campaign_id = ? AND chunk = ? AND device_token = ?")
            var fresh = 0, again = 0
            var marked: [String] = []
            for token in tokens {
                state.reset()
                try state.bind([.text(chunk.campaign.id), .integer(chunk.chunk), .text(token)])
                switch try state.rows({ $0.text(0) }).first ?? nil {
                case "pending": fresh += 1
                case "in_flight": again += 1
                default: continue
                }
                mark.reset()
                try mark.bind([.text(chunk.campaign.id), .integer(chunk.chunk), .text(token)])
                try mark.run()
                marked.append(token)
            }
            let counters = try db.prepared(
                "UPDATE campaigns SET in_flight = in_flight + ?, resent_after_crash = resent_after_crash + ? WHERE campaign_id = ?")
            try counters.bind([.integer(fresh), .integer(again), .text(chunk.campaign.id)])
            try counters.run()
            return marked
        }
    }

    /// See `CampaignStore.recordCampaignResults(_:results:funnel:)`.
    public func recordCampaignResults(_ chunk: CampaignChunk, results: [CampaignTargetResult], funnel: CampaignFunnelBatch?) throws {
        try campaignWriteIndexing { db, indexed in
            var recorded: Set<String> = []
            let state = try db.prepared("SELECT state FROM campaign_targets WHERE campaign_id = ? AND chunk = ? AND device_token = ?")
            let done = try db.prepared(
                "UPDATE campaign_targets SET state = ?, outcome = ?, status = ?, reason = ? WHERE campaign_id = ? AND chunk = ? AND device_token = ?")
            var delta = CampaignCounterDelta()
            for result in results {
                state.reset()
                try state.bind([.text(chunk.campaign.id), .integer(chunk.chunk), .text(result.token)])
                guard let current = try state.rows({ $0.text(0) }).first ?? nil, current != "done" else { continue }
                delta.add(result, wasInFlight: current == "in_flight")
                if !result.isNotSent { recorded.insert(result.token) }
                done.reset()
                try done.bind([
                    .text(result.isNotSent ? "pending" : "done"), result.isNotSent ? .null : .text(result.outcome), .optional(result.status),
                    .optional(result.reason), .text(chunk.campaign.id), .integer(chunk.chunk), .text(result.token),
                ])
                try done.run()
            }
            let counters = try db.prepared(
                """
                UPDATE campaigns SET sent = sent + ?, accepted = accepted + ?, skipped = skipped + ?, failed = failed + ?,
                  in_flight = in_flight - ? WHERE campaign_id = ?
                """)
            try counters.bind([
                .integer(delta.sent), .integer(delta.accepted), .integer(delta.skipped), .integer(delta.failed), .integer(delta.leftFlight),
                .text(chunk.campaign.id),
            ])
            try counters.run()
            for send in funnel?.sends(results, recorded: recorded, chunk: chunk) ?? [] {
                let (_, pushes) = try writeSend(send)
                indexed.merge(pushes) { _, new in new }
            }
        }
    }

    /// See `CampaignStore.releaseCampaignChunk(_:nowMs:error:webhooks:hold:)`.
    public func releaseCampaignChunk(_ chunk: CampaignChunk, nowMs: Int, error: String?, webhooks: WebhookSettings?, hold: CampaignHold) throws {
        try writeTransaction { db in
            let release = try db.prepared(
                """
                UPDATE campaign_chunks SET owner = NULL, lease_until_ms = 0, state = CASE WHEN EXISTS (
                  SELECT 1 FROM campaign_targets t WHERE t.campaign_id = campaign_chunks.campaign_id AND t.chunk = campaign_chunks.chunk AND t.state <> 'done'
                ) THEN 'pending' ELSE 'done' END
                WHERE campaign_id = ? AND chunk = ? AND owner = ?
                RETURNING state
                """)
            try release.bind([.text(chunk.campaign.id), .integer(chunk.chunk), .text(chunk.owner)])
            let states = try release.rows { $0.text(0) }
            // A chunk handed back with targets left (or a test chunk done: the winner may be
            // due): another worker looks.
            if !states.isEmpty { pendingChanges.insert(.campaigns) }
            let notBefore: Int? =
                switch hold {
                case .none: nil
                case .nextSecond: (nowMs / 1000 + 1) * 1000
                case .milliseconds(let ms): nowMs + ms
                }
            if let notBefore {
                let later = try db.prepared("UPDATE campaigns SET next_claim_ms = MAX(next_claim_ms, ?) WHERE campaign_id = ?")
                try later.bind([.integer(notBefore), .text(chunk.campaign.id)])
                try later.run()
            }
            if let error {
                let note = try db.prepared("UPDATE campaigns SET last_error = ? WHERE campaign_id = ?")
                try note.bind([.text(error), .text(chunk.campaign.id)])
                try note.run()
            }
            let finish = try db.prepared(
                """
                UPDATE campaigns SET state = 'finished', finished_at_ms = ? WHERE campaign_id = ? AND state = 'running'
                  AND NOT EXISTS (SELECT 1 FROM campaign_chunks k WHERE k.campaign_id = campaigns.campaign_id AND k.state <> 'done')
                RETURNING campaign_id
                """)
            try finish.bind([.integer(nowMs), .text(chunk.campaign.id)])
            try reportFinished(db, finish, nowMs: nowMs, webhooks: webhooks)
        }
    }

    /// See `CampaignStore.reserveCampaignBudget(campaignID:perMinute:nowMs:wanted:)`.
    public func reserveCampaignBudget(campaignID: String, perMinute: Int, nowMs: Int, wanted: Int) throws -> Int {
        let second = nowMs / 1000
        let allowance = Self.allowance(perMinute: perMinute, second: second)
        return try writeTransaction { db in
            let prune = try db.prepared("DELETE FROM campaign_budget WHERE campaign_id = ? AND second < ?")
            try prune.bind([.text(campaignID), .integer(second - 120)])
            try prune.run()
            let used = try db.prepared("SELECT used FROM campaign_budget WHERE campaign_id = ? AND second = ?")
            try used.bind([.text(campaignID), .integer(second)])
            let already = try used.rows { $0.int(0) ?? 0 }.first ?? 0
            let granted = max(0, min(wanted, allowance - already))
            guard granted > 0 else { return 0 }
            let upsert = try db.prepared(
                "INSERT INTO campaign_budget (campaign_id, second, used) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET used = used + excluded.used")
            try upsert.bind([.text(campaignID), .integer(second), .integer(granted)])
            try upsert.run()
            return granted
        }
    }

    /// See `CampaignStore.purgeCampaignTargets(finishedBeforeMs:limit:)`: the campaign found on
    /// a reader first, then one bounded `DELETE` under the write lock.
    public func purgeCampaignTargets(finishedBeforeMs: Int, limit: Int) throws -> Int {
        let due = try reading { db in
            let query = try db.prepared(
                """
                SELECT campaign_id FROM campaigns WHERE state IN ('finished', 'cancelled') AND finished_at_ms < ?
                  AND EXISTS (SELECT 1 FROM campaign_targets t WHERE t.campaign_id = campaigns.campaign_id)
                ORDER BY finished_at_ms, campaign_id LIMIT 1
                """)
            try query.bind([.integer(finishedBeforeMs)])
            return try query.rows { $0.text(0) }.first ?? nil
        }
        guard let due else { return 0 }
        return try writeTransaction { db in
            let delete = try db.prepared(
                "DELETE FROM campaign_targets WHERE rowid IN (SELECT rowid FROM campaign_targets WHERE campaign_id = ? LIMIT ?)")
            try delete.bind([.text(due), .integer(max(1, limit))])
            try delete.run()
            return db.changes
        }
    }

    /// See `CampaignStore.nextCampaignTimer(nowMs:)`: one read.
    public func nextCampaignTimer(nowMs: Int) throws -> Int? {
        let at = try reading { db in
            let query = try db.prepared(
                """
                SELECT MIN(t) FROM (
                  SELECT MIN(send_at_ms) AS t FROM campaigns WHERE state = 'scheduled'
                  UNION ALL SELECT MIN(k.lease_until_ms) FROM campaign_chunks k JOIN campaigns c ON c.campaign_id = k.campaign_id
                    WHERE c.state = 'running' AND k.state = 'leased'
                  UNION ALL SELECT MIN(next_claim_ms) FROM campaigns WHERE state = 'running' AND next_claim_ms > ?1
                  UNION ALL SELECT MIN(started_at_ms + COALESCE(test_window_ms, 0)) FROM campaigns
                    WHERE state = 'running' AND test_share IS NOT NULL AND winner IS NULL)
                """)
            try query.bind([.integer(nowMs)])
            return try query.rows { $0.int(0) }.first ?? nil
        }
        return at.map { max(0, $0 - nowMs) }
    }

    /// Replaces a device's tags (inside `registerDevice`'s transaction).
    static func replaceTags(_ db: SQLiteConnection, token: String, tags: [String]) throws {
        let clear = try db.prepared("DELETE FROM device_tags WHERE device_token = ?")
        try clear.bind([.text(token)])
        try clear.run()
        let add = try db.prepared("INSERT OR IGNORE INTO device_tags (device_token, tag) VALUES (?, ?)")
        for tag in tags {
            add.reset()
            try add.bind([.text(token), .text(tag)])
            try add.run()
        }
    }
}
