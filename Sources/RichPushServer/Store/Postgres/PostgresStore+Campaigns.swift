import Foundation
import RichPushCore

/// Campaigns in PostgreSQL (`CampaignStore`, schema version 7): the SQLite store's tables, shared
/// by every instance on the database. A chunk is leased with `SELECT … FOR UPDATE SKIP LOCKED`,
/// so workers of several instances claim different chunks without waiting on each other; every
/// step is one transaction, committed before it returns. Leases, `send_at`, the throttle's seconds
/// and hold-offs are compared on the database's clock (`clock`), never one instance's.
extension PostgresStore: CampaignStore {
    /// Version 7: campaigns, their targets and chunks, the throttle's budget, device tags.
    static let migrateToVersion7 = """
        CREATE TABLE IF NOT EXISTS campaigns (
            campaign_id text PRIMARY KEY,
            push_id text NOT NULL,
            state text NOT NULL,
            title text,
            payload text NOT NULL,
            topic text NOT NULL,
            push_type text NOT NULL,
            priority integer,
            expiration bigint,
            collapse_id text NOT NULL,
            provider text,
            audience text NOT NULL,
            send_at_ms bigint NOT NULL,
            per_minute bigint,
            targets bigint NOT NULL DEFAULT 0,
            sent bigint NOT NULL DEFAULT 0,
            accepted bigint NOT NULL DEFAULT 0,
            skipped bigint NOT NULL DEFAULT 0,
            failed bigint NOT NULL DEFAULT 0,
            in_flight bigint NOT NULL DEFAULT 0,
            resent_after_crash bigint NOT NULL DEFAULT 0,
            created_at_ms bigint NOT NULL,
            started_at_ms bigint,
            finished_at_ms bigint,
            last_error text,
            idempotency_key text UNIQUE
        );
        CREATE INDEX IF NOT EXISTS campaigns_created ON campaigns (created_at_ms, campaign_id);
        CREATE INDEX IF NOT EXISTS campaigns_state ON campaigns (state, send_at_ms);
        CREATE TABLE IF NOT EXISTS campaign_chunks (
            campaign_id text NOT NULL,
            chunk bigint NOT NULL,
            state text NOT NULL,
            owner text,
            lease_until_ms bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (campaign_id, chunk)
        );
        CREATE INDEX IF NOT EXISTS campaign_chunks_open ON campaign_chunks (campaign_id, chunk) WHERE state <> 'done';
        CREATE TABLE IF NOT EXISTS campaign_targets (
            campaign_id text NOT NULL,
            chunk bigint NOT NULL,
            device_token text COLLATE "C" NOT NULL,
            provider text NOT NULL,
            state text NOT NULL,
            outcome text,
            status integer,
            reason text,
            attempts integer NOT NULL DEFAULT 0,
            PRIMARY KEY (campaign_id, chunk, device_token)
        );
        CREATE TABLE IF NOT EXISTS campaign_budget (
            campaign_id text NOT NULL,
            second bigint NOT NULL,
            used bigint NOT NULL,
            PRIMARY KEY (campaign_id, second)
        );
        CREATE TABLE IF NOT EXISTS device_tags (
            device_token text NOT NULL,
            tag text NOT NULL,
            PRIMARY KEY (device_token, tag)
        );
        CREATE INDEX IF NOT EXISTS device_tags_tag ON device_tags (tag, device_token);
        UPDATE richpush_meta SET value = '7' WHERE key = 'schema_version';
        """

    /// Runs `body` in one transaction on a pool connection.
    private func campaignTransaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try pooled { db in
            try db.execute("BEGIN")
            do {
                let result = try body(db)
                try db.execute("COMMIT")
                return result
            } catch {
                if db.isConnected { _ = try? db.execute("ROLLBACK") }
                throw error
            }
        }
    }

    private static func records(_ result: PostgresResult) -> [CampaignRecord] {
        result.rows { row in CampaignRecord(text: { result.text(row, $0) }, int: { result.int(row, $0) }) }
    }

    private static func readCampaign(_ db: PostgresConnection, _ id: String) throws -> CampaignRecord? {
        records(try db.execute("SELECT \(CampaignRecord.columns) FROM campaigns WHERE campaign_id = $1", [id])).first
    }

    private static func readVariants(_ db: PostgresConnection, _ id: String) throws -> [CampaignVariant] {
        let result = try db.execute("SELECT \(CampaignVariant.columns) FROM campaign_variants WHERE campaign_id = $1 ORDER BY variant", [id])
        return result.rows { row in CampaignVariant(text: { result.text(row, $0) }, int: { result.int(row, $0) }) }
    }

    /// See `CampaignStore.createCampaign(_:webhooks:)`. Created, started and `send_at` compared on
    /// the database's clock (`clock`).
    public func createCampaign(_ draft: CampaignDraft, webhooks: WebhookSettings?) throws -> (campaign: CampaignRecord, created: Bool) {
        let given = clockValue(draft.createdAtMs)
        return try campaignTransaction { db in
            // The snapshot of a large audience takes longer than the sessions' 2 s statement
            // bound (`PostgresDeadline`): this transaction alone runs without it.
            db.unbounded = true
            defer { db.unbounded = false }
            try db.execute("SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = '10s'")
            if let key = draft.idempotencyKey {
                // Two instances creating with one key: the unique index makes the second wait, then find the first's.
                if let found = Self.records(try db.execute("SELECT \(CampaignRecord.columns) FROM campaigns WHERE idempotency_key = $1", [key])).first {
                    return (found, false)
                }
            }
            let inserted = try db.execute(
                """
                WITH t AS (SELECT \(Self.now("$14")) AS now)
                INSERT INTO campaigns (campaign_id, push_id, state, title, payload, topic, push_type, priority, expiration, collapse_id, provider,
                  audience, send_at_ms, per_minute, created_at_ms, started_at_ms, idempotency_key, queue_priority, media_report, test_share,
                  test_window_ms, winner_by, attribution_ms, variant_count)
                SELECT $1, $2, CASE WHEN $12::bigint <= t.now THEN 'running' ELSE 'scheduled' END, $3, $4, $5, $6, $7::integer, $8::bigint, $9,
                  $10, $11, $12::bigint, $13::bigint, t.now, CASE WHEN $12::bigint <= t.now THEN t.now END, $15, $16::integer, $17, $18::integer,
                  $19::bigint, $20, $21::bigint, $22::integer
                FROM t ON CONFLICT (idempotency_key) DO NOTHING
                RETURNING 1
                """,
                [
                    draft.id, draft.pushID, draft.title, draft.payload, draft.topic, draft.pushType, draft.priority.map(String.init),
                    draft.expiration.map(String.init), draft.collapseID, draft.provider, draft.audience.kind, String(draft.sendAtMs),
                    draft.perMinute.map(String.init), given, draft.idempotencyKey, String(draft.queuePriority), draft.mediaReport,
                    draft.testSharePercent.map(String.init), draft.testWindowMs.map(String.init), draft.winnerBy, draft.attributionMs.map(String.init),
                    String(draft.variants.count),
                ])
            if inserted.count == 0, let key = draft.idempotencyKey,
                let found = Self.records(try db.execute("SELECT \(CampaignRecord.columns) FROM campaigns WHERE idempotency_key = $1", [key])).first
            {
                return (found, false)
            }
            for v in draft.variants {
                try db.execute(
                    "INSERT INTO campaign_variants (campaign_id, variant, push_id, title, payload, weight, media_report) VALUES ($1, $2, $3, $4, $5, $6::integer, $7)",
                    [draft.id, v.name, v.pushID, v.title, v.payload, String(v.weight), v.mediaReport])
            }
            // The snapshot: one INSERT … SELECT in the database, numbered into chunks in token
            // order (`CampaignSnapshotPlan`: the test's targets with their variants, then the rest).
            let plan = CampaignSnapshotPlan(draft)
            var parameters: [String?] = [draft.id, String(plan.testPercent), String(draft.variants.count)]
            func parameter(_ value: String?) -> String {
                parameters.append(value)
                return "$\(parameters.count)"
            }
            // Device audiences: only the named provider's devices (the tokens case takes the provider as is).
            func providerFilter() -> String { draft.provider.map { " AND d.provider = \(parameter($0))" } ?? "" }
            let source: String
            switch draft.audience {
            case .tokens(let tokens):
                let provider = parameter(draft.provider ?? "apns")
                source =
                    "SELECT t.n AS n, t.token AS token, \(provider)::text AS provider FROM unnest(\(parameter(PostgresArrayLiteral.text(tokens)))::text[]) WITH ORDINALITY AS t(token, n)"
            case .userIDs(let ids):
                source =
                    "SELECT NULL::bigint AS n, d.device_token AS token, d.provider AS provider FROM devices d WHERE d.user_id = ANY(\(parameter(PostgresArrayLiteral.text(ids)))::text[])\(providerFilter())"
            case .all(let platform):
                let platformFilter = platform.map { " AND d.platform = \(parameter($0))" } ?? ""
                source =
                    "SELECT NULL::bigint AS n, d.device_token AS token, d.provider AS provider FROM devices d WHERE true\(platformFilter)\(providerFilter())"
            case .tagsAny(let tags):
                source =
                    "SELECT NULL::bigint AS n, d.device_token AS token, d.provider AS provider FROM devices d WHERE d.device_token IN (SELECT device_token FROM device_tags WHERE tag = ANY(\(parameter(PostgresArrayLiteral.text(tags)))::text[]))\(providerFilter())"
            }
            let snapshot = try db.execute(
                """
                INSERT INTO campaign_targets (campaign_id, chunk, device_token, provider, state, variant)
                SELECT $1::text, \(plan.chunkExpression(test: "r.m")), r.token, r.provider, 'pending', \(plan.variantExpression(test: "r.m"))
                FROM (SELECT q.*, GREATEST(LEAST(q.total, $3::bigint), q.total * $2::bigint / 100) AS m FROM (
                  SELECT s.token, s.provider, ROW_NUMBER() OVER (ORDER BY s.n, s.token COLLATE "C") AS rn, COUNT(*) OVER () AS total
                  FROM (\(source)) s) q) r
                """, parameters)
            let count = Int(snapshot.commandStatus.split(separator: " ").last ?? "") ?? 0
            try db.execute(
                """
                INSERT INTO campaign_chunks (campaign_id, chunk, state, phase)
                SELECT campaign_id, chunk, 'pending', \(plan.phaseExpression) FROM campaign_targets WHERE campaign_id = $1 GROUP BY campaign_id, chunk
                """, [draft.id])
            try db.execute(
                """
                UPDATE campaigns SET targets = $2::bigint, state = CASE WHEN $2::bigint = 0 AND state = 'running' THEN 'finished' ELSE state END,
                  finished_at_ms = CASE WHEN $2::bigint = 0 AND state = 'running' THEN created_at_ms END WHERE campaign_id = $1
                """, [draft.id, String(count)])
            guard let stored = try Self.readCampaign(db, draft.id) else {
                throw RichPushError(code: .store, message: "the campaign vanished while it was created; retry")
            }
            if count == 0, stored.state == "finished", let webhooks {
                try Self.insertWebhookDeliveries(webhooks.campaignEndDeliveries([stored], atMs: stored.createdAtMs), on: db)
            }
            // Idle workers of every instance look at once (delivered at COMMIT).
            try Self.notify(.campaigns, on: db)
            return (stored, true)
        }
    }

    /// See `CampaignStore.campaign(_:)`.
    public func campaign(_ id: String) throws -> CampaignRecord? {
        try pooled(readOnly: true) { try Self.readCampaign($0, id) }
    }

    /// See `CampaignStore.campaignVariants(_:)`.
    public func campaignVariants(_ id: String) throws -> [CampaignVariant] {
        try pooled(readOnly: true) { try Self.readVariants($0, id) }
    }

    /// See `CampaignStore.campaigns(limit:before:)`.
    public func campaigns(limit: Int, before: String?) throws -> [CampaignRecord] {
        try pooled(readOnly: true) { db in
            if let before {
                return Self.records(
                    try db.execute(
                        """
                        SELECT \(CampaignRecord.columns) FROM campaigns
                        WHERE (created_at_ms, campaign_id) < (SELECT created_at_ms, campaign_id FROM campaigns WHERE campaign_id = $1)
                        ORDER BY created_at_ms DESC, campaign_id DESC LIMIT $2
                        """, [before, String(limit)]))
            }
            return Self.records(
                try db.execute("SELECT \(CampaignRecord.columns) FROM campaigns ORDER BY created_at_ms DESC, campaign_id DESC LIMIT $1", [String(limit)]))
        }
    }

    /// See `CampaignStore.cancelCampaign(_:atMs:webhooks:)`.
    public func cancelCampaign(_ id: String, atMs: Int, webhooks: WebhookSettings?) throws -> CampaignRecord? {
        let given = clockValue(atMs)
        return try campaignTransaction { db in
            let cancelled = try db.execute(
                "UPDATE campaigns SET state = 'cancelled', finished_at_ms = \(Self.now("$2")) WHERE campaign_id = $1 AND state IN ('scheduled', 'running') RETURNING finished_at_ms",
                [id, given])
            let campaign = try Self.readCampaign(db, id)
            if cancelled.count == 1, let campaign, let webhooks {
                try Self.insertWebhookDeliveries(webhooks.campaignEndDeliveries([campaign], atMs: campaign.finishedAtMs ?? atMs), on: db)
            }
            return campaign
        }
    }

    /// Writes `campaign.finished` for the campaigns a finishing `UPDATE … RETURNING campaign_id,
    /// finished_at_ms` just changed, in its transaction. The row lock is the guard: an instance
    /// finishing the same campaign at once waits for it, then finds the state no longer `running`.
    private static func reportFinished(_ db: PostgresConnection, _ finished: PostgresResult, webhooks: WebhookSettings?) throws {
        guard let webhooks, webhooks.wants(.campaignFinished) else { return }
        let ids = finished.rows { finished.text($0, 0) ?? "" }
        guard !ids.isEmpty else { return }
        let campaigns = try ids.compactMap { try readCampaign(db, $0) }
        for campaign in campaigns {
            try insertWebhookDeliveries(webhooks.campaignEndDeliveries([campaign], atMs: campaign.finishedAtMs ?? campaign.createdAtMs), on: db)
        }
    }

    /// See `CampaignStore.advanceCampaigns(nowMs:webhooks:)`: `send_at` on the database's clock.
    public func advanceCampaigns(nowMs: Int, webhooks: WebhookSettings?) throws {
        let given = clockValue(nowMs)
        try campaignTransaction { db in
            let started = try db.execute(
                "UPDATE campaigns SET state = 'running', started_at_ms = \(Self.now("$1")) WHERE state = 'scheduled' AND send_at_ms <= \(Self.now("$1")) RETURNING 1",
                [given])
            if started.count > 0 { try Self.notify(.campaigns, on: db) }
            let finished = try db.execute(
                """
                UPDATE campaigns c SET state = 'finished', finished_at_ms = \(Self.now("$1")) WHERE c.state = 'running'
                  AND NOT EXISTS (SELECT 1 FROM campaign_chunks k WHERE k.campaign_id = c.campaign_id AND k.state <> 'done')
                RETURNING c.campaign_id
                """, [given])
            try Self.reportFinished(db, finished, webhooks: webhooks)
        }
    }

    /// See `CampaignStore.campaignsAwaitingWinner(nowMs:)`.
    public func campaignsAwaitingWinner(nowMs: Int) throws -> [CampaignRecord] {
        let given = clockValue(nowMs)
        return try pooled(readOnly: true) { db in
            Self.records(
                try db.execute(
                    """
                    SELECT \(CampaignRecord.columns) FROM campaigns c WHERE c.state = 'running' AND c.test_share IS NOT NULL AND c.winner IS NULL
                      AND c.started_at_ms + COALESCE(c.test_window_ms, 0) <= \(Self.now("$1"))
                      AND NOT EXISTS (SELECT 1 FROM campaign_chunks k WHERE k.campaign_id = c.campaign_id AND k.phase = 'test' AND k.state <> 'done')
                    """, [given]))
        }
    }

    /// See `CampaignStore.setCampaignWinner(_:variant:nowMs:)`.
    @discardableResult
    public func setCampaignWinner(_ id: String, variant: String, nowMs: Int) throws -> Bool {
        let given = clockValue(nowMs)
        return try campaignTransaction { db in
            let set = try db.execute(
                "UPDATE campaigns SET winner = $2, winner_at_ms = \(Self.now("$3")) WHERE campaign_id = $1 AND winner IS NULL RETURNING 1",
                [id, variant, given])
            guard set.count == 1 else { return false }
            try Self.notify(.campaigns, on: db)
            return true
        }
    }

    /// See `CampaignStore.claimCampaignChunk(owner:nowMs:leaseMs:)`: the campaign whose turn it is
    /// (priority, then the one claimed longest ago), its first free chunk, leases compared on the
    /// database's clock.
    public func claimCampaignChunk(owner: String, nowMs: Int, leaseMs: Int) throws -> CampaignChunk? {
        let given = clockValue(nowMs)
        return try campaignTransaction { db in
            let free = try db.execute(
                """
                SELECT k.campaign_id, k.chunk, \(Self.now("$1")) FROM campaign_chunks k JOIN campaigns c ON c.campaign_id = k.campaign_id
                WHERE c.state = 'running' AND c.next_claim_ms <= \(Self.now("$1")) AND k.state <> 'done'
                  AND (k.state = 'pending' OR k.lease_until_ms <= \(Self.now("$1"))) AND (k.phase <> 'rest' OR c.winner IS NOT NULL)
                ORDER BY c.queue_priority DESC, c.last_claim_ms, c.created_at_ms, c.campaign_id, k.chunk LIMIT 1 FOR UPDATE OF k SKIP LOCKED
                """, [given])
            guard free.count == 1, let campaignID = free.text(0, 0), let chunk = free.int(0, 1), let now = free.int(0, 2) else { return nil }
            try db.execute(
                "UPDATE campaign_chunks SET state = 'leased', owner = $3, lease_until_ms = $4::bigint WHERE campaign_id = $1 AND chunk = $2",
                [campaignID, String(chunk), owner, String(now + leaseMs)])
            // Its turn is taken: equal priorities go to the others first.
            try db.execute(
                "UPDATE campaigns SET last_claim_ms = GREATEST(last_claim_ms + 1, $2::bigint) WHERE campaign_id = $1", [campaignID, String(now)])
            guard let campaign = try Self.readCampaign(db, campaignID) else { return nil }
            let targets = try db.execute(
                "SELECT device_token, provider, state, variant FROM campaign_targets WHERE campaign_id = $1 AND chunk = $2 AND state <> 'done' ORDER BY device_token",
                [campaignID, String(chunk)])
            let list = targets.rows {
                CampaignChunk.Target(
                    token: targets.text($0, 0) ?? "", provider: targets.text($0, 1) ?? "apns", wasInFlight: targets.text($0, 2) == "in_flight",
                    variant: targets.text($0, 3))
            }
            let variants = campaign.hasVariants ? try Self.readVariants(db, campaignID) : []
            return CampaignChunk(campaign: campaign, chunk: chunk, owner: owner, targets: list, variants: variants)
        }
    }

    /// See `CampaignStore.markCampaignTargetsInFlight(_:tokens:nowMs:leaseMs:)`: the lease renewed
    /// on the database's clock.
    public func markCampaignTargetsInFlight(_ chunk: CampaignChunk, tokens: [String], nowMs: Int, leaseMs: Int) throws -> [String]? {
        let given = clockValue(nowMs)
        return try campaignTransaction { db in
            let renewed = try db.execute(
                """
                UPDATE campaign_chunks k SET lease_until_ms = \(Self.now("$4")) + $5::bigint
                WHERE k.campaign_id = $1 AND k.chunk = $2 AND k.owner = $3 AND k.state = 'leased'
                  AND EXISTS (SELECT 1 FROM campaigns c WHERE c.campaign_id = k.campaign_id AND c.state = 'running') RETURNING 1
                """, [chunk.campaign.id, String(chunk.chunk), chunk.owner, given, String(leaseMs)])
            guard renewed.count == 1 else { return nil }
            guard !tokens.isEmpty else { return [] }
            // The old state of each row comes from the joined snapshot of the same row.
            let marked = try db.execute(
                """
                UPDATE campaign_targets t SET state = 'in_flight', attempts = t.attempts + 1 FROM campaign_targets old
                WHERE t.campaign_id = $1 AND t.chunk = $2 AND t.device_token = ANY($3::text[]) AND t.state <> 'done'
                  AND old.campaign_id = t.campaign_id AND old.chunk = t.chunk AND old.device_token = t.device_token
                RETURNING t.device_token, old.state
                """, [chunk.campaign.id, String(chunk.chunk), PostgresArrayLiteral.text(tokens.sorted())])
            var fresh = 0, again = 0
            var tokens: [String] = []
            for row in 0..<marked.count {
                tokens.append(marked.text(row, 0) ?? "")
                if marked.text(row, 1) == "in_flight" { again += 1 } else { fresh += 1 }
            }
            try db.execute(
                "UPDATE campaigns SET in_flight = in_flight + $2, resent_after_crash = resent_after_crash + $3 WHERE campaign_id = $1",
                [chunk.campaign.id, String(fresh), String(again)])
            return tokens
        }
    }

    /// See `CampaignStore.recordCampaignResults(_:results:funnel:)`.
    public func recordCampaignResults(_ chunk: CampaignChunk, results: [CampaignTargetResult], funnel: CampaignFunnelBatch?) throws {
        guard !results.isEmpty else { return }
        let sorted = results.sorted { $0.token < $1.token }
        try campaignTransaction { db in
            let updated = try db.execute(
                """
                UPDATE campaign_targets t SET state = CASE WHEN r.outcome = 'not_sent' THEN 'pending' ELSE 'done' END,
                  outcome = CASE WHEN r.outcome = 'not_sent' THEN NULL ELSE r.outcome END, status = r.status::integer, reason = r.reason
                FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS r(token, outcome, status, reason), campaign_targets old
                WHERE t.campaign_id = $1 AND t.chunk = $2 AND t.device_token = r.token AND t.state <> 'done'
                  AND old.campaign_id = t.campaign_id AND old.chunk = t.chunk AND old.device_token = t.device_token
                RETURNING t.device_token, old.state
                """,
                [
                    chunk.campaign.id, String(chunk.chunk), PostgresArrayLiteral.text(sorted.map(\.token)),
                    PostgresArrayLiteral.text(sorted.map(\.outcome)), PostgresArrayLiteral.text(sorted.map { $0.status.map(String.init) }),
                    PostgresArrayLiteral.text(sorted.map(\.reason)),
                ])
            var wasInFlight: [String: Bool] = [:]
            for row in 0..<updated.count { wasInFlight[updated.text(row, 0) ?? ""] = updated.text(row, 1) == "in_flight" }
            var delta = CampaignCounterDelta()
            var recorded: Set<String> = []
            for result in sorted {
                guard let inFlight = wasInFlight[result.token] else { continue }
                delta.add(result, wasInFlight: inFlight)
                if !result.isNotSent { recorded.insert(result.token) }
            }
            // The funnel, in this commit: only the targets it gave a result.
            for send in funnel?.sends(sorted, recorded: recorded, chunk: chunk) ?? [] {
                // With its tokens' events (token.inactive, token.bad) when this commit records it.
                if try Self.recordSend(send, on: db) == .recorded { try Self.insertWebhookDeliveries(send.webhookDeliveries, on: db) }
            }
            try db.execute(
                """
                UPDATE campaigns SET sent = sent + $2, accepted = accepted + $3, skipped = skipped + $4, failed = failed + $5,
                  in_flight = in_flight - $6 WHERE campaign_id = $1
                """,
                [
                    chunk.campaign.id, String(delta.sent), String(delta.accepted), String(delta.skipped), String(delta.failed),
                    String(delta.leftFlight),
                ])
        }
    }

    /// See `CampaignStore.releaseCampaignChunk(_:nowMs:error:webhooks:hold:)`: the hold-off on the
    /// database's clock.
    public func releaseCampaignChunk(_ chunk: CampaignChunk, nowMs: Int, error: String?, webhooks: WebhookSettings?, hold: CampaignHold) throws {
        let given = clockValue(nowMs)
        try campaignTransaction { db in
            let released = try db.execute(
                """
                UPDATE campaign_chunks k SET owner = NULL, lease_until_ms = 0, state = CASE WHEN EXISTS (
                  SELECT 1 FROM campaign_targets t WHERE t.campaign_id = k.campaign_id AND t.chunk = k.chunk AND t.state <> 'done'
                ) THEN 'pending' ELSE 'done' END
                WHERE k.campaign_id = $1 AND k.chunk = $2 AND k.owner = $3 RETURNING k.state
                """, [chunk.campaign.id, String(chunk.chunk), chunk.owner])
            // A chunk handed back (targets left, or a test chunk done: the winner may be due):
            // another worker may look now.
            if released.count > 0 { try Self.notify(.campaigns, on: db) }
            switch hold {
            case .none: break
            case .nextSecond:
                try db.execute(
                    "UPDATE campaigns SET next_claim_ms = GREATEST(next_claim_ms, (\(Self.now("$2")) / 1000 + 1) * 1000) WHERE campaign_id = $1",
                    [chunk.campaign.id, given])
            case .milliseconds(let ms):
                try db.execute(
                    "UPDATE campaigns SET next_claim_ms = GREATEST(next_claim_ms, \(Self.now("$2")) + $3::bigint) WHERE campaign_id = $1",
                    [chunk.campaign.id, given, String(ms)])
            }
            if let error {
                try db.execute("UPDATE campaigns SET last_error = $2 WHERE campaign_id = $1", [chunk.campaign.id, error])
            }
            let finished = try db.execute(
                """
                UPDATE campaigns c SET state = 'finished', finished_at_ms = \(Self.now("$2")) WHERE c.campaign_id = $1 AND c.state = 'running'
                  AND NOT EXISTS (SELECT 1 FROM campaign_chunks k WHERE k.campaign_id = c.campaign_id AND k.state <> 'done')
                RETURNING c.campaign_id
                """, [chunk.campaign.id, given])
            try Self.reportFinished(db, finished, webhooks: webhooks)
        }
    }

    /// See `CampaignStore.reserveCampaignBudget(campaignID:perMinute:nowMs:wanted:)`: the second is
    /// the database's, so every instance takes from the same second's budget.
    public func reserveCampaignBudget(campaignID: String, perMinute: Int, nowMs: Int, wanted: Int) throws -> Int {
        let given = clockValue(nowMs)
        return try campaignTransaction { db in
            let second = try db.execute("SELECT \(Self.now("$1")) / 1000", [given]).int(0, 0) ?? nowMs / 1000
            let allowance = Self.allowance(perMinute: perMinute, second: second)
            try db.execute("DELETE FROM campaign_budget WHERE campaign_id = $1 AND second < $2", [campaignID, String(second - 120)])
            try db.execute(
                "INSERT INTO campaign_budget (campaign_id, second, used) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING", [campaignID, String(second)])
            // The row lock orders instances taking from one second's budget.
            let used =
                try db.execute("SELECT used FROM campaign_budget WHERE campaign_id = $1 AND second = $2 FOR UPDATE", [campaignID, String(second)])
                .int(0, 0) ?? 0
            let granted = max(0, min(wanted, allowance - used))
            if granted > 0 {
                try db.execute(
                    "UPDATE campaign_budget SET used = used + $3 WHERE campaign_id = $1 AND second = $2", [campaignID, String(second), String(granted)])
            }
            return granted
        }
    }

    /// See `CampaignStore.purgeCampaignTargets(finishedBeforeMs:limit:)`: one statement, at
    /// most `limit` rows of the campaign that ended first.
    public func purgeCampaignTargets(finishedBeforeMs: Int, limit: Int) throws -> Int {
        try pooled { db in
            let deleted = try db.execute(
                """
                WITH due AS (
                    SELECT c.campaign_id FROM campaigns c WHERE c.state IN ('finished', 'cancelled') AND c.finished_at_ms < $1::bigint
                      AND EXISTS (SELECT 1 FROM campaign_targets t WHERE t.campaign_id = c.campaign_id)
                    ORDER BY c.finished_at_ms, c.campaign_id LIMIT 1
                )
                DELETE FROM campaign_targets WHERE ctid IN (
                    SELECT t.ctid FROM campaign_targets t WHERE t.campaign_id = (SELECT campaign_id FROM due) LIMIT $2::bigint)
                """, [String(finishedBeforeMs), String(max(1, limit))])
            return Int(deleted.commandStatus.split(separator: " ").last ?? "") ?? 0
        }
    }

    /// See `CampaignStore.nextCampaignTimer(nowMs:)`: one query, the wait measured on the
    /// database's clock.
    public func nextCampaignTimer(nowMs: Int) throws -> Int? {
        let given = clockValue(nowMs)
        return try pooled(readOnly: true) { db in
            try db.execute(
                """
                SELECT LEAST((SELECT min(send_at_ms) FROM campaigns WHERE state = 'scheduled'),
                  (SELECT min(k.lease_until_ms) FROM campaign_chunks k JOIN campaigns c ON c.campaign_id = k.campaign_id
                   WHERE c.state = 'running' AND k.state = 'leased'),
                  (SELECT min(next_claim_ms) FROM campaigns WHERE state = 'running' AND next_claim_ms > \(Self.now("$1"))),
                  (SELECT min(started_at_ms + COALESCE(test_window_ms, 0)) FROM campaigns
                   WHERE state = 'running' AND test_share IS NOT NULL AND winner IS NULL)) - \(Self.now("$1"))
                """, [given]
            ).int(0, 0).map { max(0, $0) }
        }
    }

    /// `NOTIFY` the channel of `change` inside the caller's transaction (delivered to listeners
    /// at COMMIT).
    static func notify(_ change: StoreChange, on db: PostgresConnection) throws {
        try db.execute("SELECT pg_notify($1, '')", [PostgresListener.channel(change)])
    }
}
