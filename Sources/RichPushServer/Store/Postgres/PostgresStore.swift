import Foundation
@_spi(RichPushInternal) import RichPushCore

/// The store for running several `richpush serve` instances: PostgreSQL through libpq, behind
/// the same protocols as `SQLiteStore` and with the same answers, byte for byte, at the API.
///
/// Writes: the group-commit writer (`ReceiptWriter`) hands each batch to `insert(_:)`, which
/// sends it as ONE statement (text arrays unnested; one round trip): `INSERT … ON CONFLICT
/// (push_id, event, receipt_id) DO NOTHING RETURNING …` for the receipts, and in the same
/// statement — so the same transaction — the upserts of `push_counts` and `push_elapsed` from
/// the rows it inserted. A statement outside `BEGIN` is its own transaction; libpq returns after
/// its COMMIT (with `synchronous_commit=on`, which every session sets unless the server already
/// syncs at least that hard, after the WAL flush), and only then are the receipts answered `202`.
///
/// Several instances write at once without deadlocks: every statement takes its row locks in
/// one global order (receipts sorted by key, then `push_counts`, then `push_elapsed`, each
/// sorted), and a deadlock or serialization failure would still be retried (up to 3 times; the
/// server rolled the transaction back, so nothing counts twice).
/// Duplicates arriving at two instances at the same moment are decided by the unique key: the
/// second waits for the first's transaction and then counts nothing.
///
/// Connections: a pool of writers, one receipt batch in flight on each (`ReceiptWriter` runs as
/// many writer threads, and starts a batch beside another only once that one has waited
/// `overlapAfter` for its COMMIT's WAL flush; each writer adds to counter rows of its own slot,
/// see `PostgresSchema`), and a pool of 1–2 for reads, `recordSend` and health probes. A lost connection is made again on its next use, at
/// most every 0.5 s while the database is down (meanwhile every write fails at once, so receipts
/// get `503`, never a `202` that was not committed); `health()` reports it for `/healthz`. A
/// statement interrupted by a lost connection is not run again by the store (it may have
/// committed): its receipts get `503`, and the device's retry is deduplicated by its key.
public final class PostgresStore: ReceiptStore, StatisticsStore, Sendable {
    /// The parsed URL (`redacted` for display).
    public let info: PostgresConnectionInfo
    private let writers: PostgresPool
    private let pool: PostgresPool
    private let availability: PostgresAvailability
    /// The `LISTEN` session that wakes idle campaign workers and webhook loops (started on first use).
    let listener: PostgresListener
    /// Whose clock leases, `send_at`, throttle seconds and idempotency claims are compared on.
    public let clock: Clock
    /// `NSLock`, not `Locked`: a try-lock (one health probe at a time; the others skip it).
    private let probeLock = NSLock()
    private let closed = Locked(false)
    /// The hour (ms / 3,600,000) in which old per-second timeline rows were last dropped.
    let prunedHour = Locked(-1)
    /// Push ids this instance knows to be in `push_index`, with their start (ms): their receipts'
    /// batches skip the index. Rows are never removed, so the knowledge never goes stale (at
    /// worst, another instance lowered a start: this one then writes nothing new). Bounded
    /// (`knownPushesLimit`), emptied when full.
    let knownPushes = Locked<[String: Int]>([:])
    /// The admitted unknown codes (`CodeFolding`), cached.
    let codeAdmissions = CodeAdmissions()
    /// The most push ids `knownPushes` holds.
    static let knownPushesLimit = 20_000

    /// Statements every session runs after connecting: raise `synchronous_commit` to `on` when
    /// the server's default is `off` (a `202` promises a flushed commit; a stronger setting,
    /// `remote_write` or `remote_apply`, or `local` is kept), and run the prepared batch
    /// statement on its generic plan from the first batch on (the plan does not depend on the
    /// arrays' contents; planning every batch again cost about 15 % more PostgreSQL CPU per
    /// receipt, measured).
    static let sessionSetup = [
        "SELECT set_config('synchronous_commit', 'on', false) WHERE current_setting('synchronous_commit') = 'off'",
        "SET plan_cache_mode = force_generic_plan",
    ]

    /// The default number of connections per store: 2 for receipt batches (the second one only
    /// used while a batch's COMMIT is slow; see `overlapAfter`), 2 for reads and sends.
    public static let defaultConnections = 4

    /// Connects, and creates or migrates the schema (under an advisory lock; see `PostgresSchema`).
    ///
    /// - Parameters:
    ///   - url: `postgres://user[:password]@host[:port]/dbname[?libpq parameters]`, passed to libpq as is.
    ///   - connections: connections to open (2…64): 2 for reads and sends (1 when 2), the rest
    ///     store receipt batches, one batch in flight on each.
    ///   - applicationName: shown in `pg_stat_activity`.
    ///   - log: where state changes go (the database lost, back again); standard error by default.
    ///   - names: what the program calls its settings, for messages.
    ///   - setting: the setting that gave `url` (the server's database, or a migration's target).
    ///   - clock: whose clock times are compared on: the database's (the default), or the times
    ///     each call is given (tests).
    /// - Throws: `RichPushError` `configuration` for a malformed URL, `storeUnavailable` naming
    ///   host and port when the server cannot be reached or refuses the login (its `setting` is
    ///   `setting`), `store` for a database with a newer or foreign schema.
    public init(
        url: String, connections: Int = PostgresStore.defaultConnections, applicationName: String = "richpush",
        log: @escaping @Sendable (String) -> Void = PostgresStore.logToStandardError, names: StoreSettingNames = .descriptive,
        setting: StoreSettingNames.Setting = .database, clock: Clock = .database
    ) throws {
        let info = try PostgresConnectionInfo(url: url, applicationName: applicationName)
        self.info = info
        self.clock = clock
        availability = PostgresAvailability(info: info, log: log)
        listener = PostgresListener(info: info, log: log)
        let total = max(2, min(connections, 64))
        let readers = total >= 3 ? 2 : 1
        do {
            // Writers start at a random counter slot, so instances rarely share one.
            writers = try PostgresPool(
                info: info, size: total - readers, firstSlot: Int.random(in: 0..<PostgresSchema.slots), sessionSetup: Self.sessionSetup,
                availability: availability)
            try writers.run { connection in
                // Instances starting together wait on each other's migration (an advisory lock):
                // no deadline for that one transaction.
                connection.unbounded = true
                defer { connection.unbounded = false }
                try connection.execute("SET statement_timeout = 0; SET lock_timeout = 0")
                try PostgresSchema.migrate(connection)
                try connection.execute(PostgresDeadline.sessionSetup.joined(separator: "; "))
            }
            pool = try PostgresPool(info: info, size: readers, sessionSetup: Self.sessionSetup, availability: availability)
        } catch let error as PostgresError {
            throw RichPushError(
                code: error.connectionLost ? .storeUnavailable : .store,
                message: error.connectionLost
                    ? "cannot connect to PostgreSQL at \(info.endpoint) (\(info.redacted)): \(error.message); \(Self.connectionAdvice(error, info: info, urlOption: names[setting]))"
                    : "PostgreSQL at \(info.endpoint) refused the RichPush schema: \(error.description)",
                underlying: error, setting: error.connectionLost ? setting.rawValue : nil
            )
        }
    }

    /// What to do when the first connection fails, naming the option the URL came from.
    ///
    /// - Parameters:
    ///   - error: libpq's failure.
    ///   - info: the parsed URL.
    ///   - urlOption: what the program calls the setting the URL came from.
    /// - Returns: the advice, for the end of the message.
    static func connectionAdvice(_ error: PostgresError, info: PostgresConnectionInfo, urlOption: String) -> String {
        let source = "the \(urlOption) URL or \(StoreLocation.environmentVariable)"
        // SQLSTATE 3D000 (invalid_catalog_name); libpq reports it at login as text only.
        if error.sqlState == "3D000" || (error.message.contains("database \"") && error.message.contains("does not exist")) {
            let name = info.database ?? info.user ?? "the database"
            return
                "the server runs, but has no database \"\(name)\": create it (createdb \(name), or CREATE DATABASE as a superuser) or name an existing one in \(source)"
        }
        return "check that the server runs and accepts connections there, and \(source) (user, password, database name, sslmode)"
    }

    /// Writes one line to standard error (the default `log`).
    public static let logToStandardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// The number of connections (writers and readers).
    public var connectionCount: Int { writers.size + pool.size }

    /// Batches stored at once: one per writer connection (see `ReceiptStore.concurrentBatches`).
    public var concurrentBatches: Int { writers.size }

    /// A second batch starts beside one in flight for 2 ms: longer than a batch takes on a
    /// quick disk (about 1 ms for 30 receipts here, WAL flush included), so quick commits keep
    /// one large batch in flight, and a slow WAL flush (2–6 ms measured on a busy disk) is
    /// overlapped with the next batch instead of idling the instance.
    public var overlapAfter: Double { 0.002 }

    /// Keeps campaigns (`PostgresStore+Campaigns`).
    public func campaignStore() -> any CampaignStore { self }
    /// Keeps idempotency keys (`PostgresStore+Idempotency`).
    public func idempotencyStore() -> any IdempotencyStore { self }
    /// Keeps the webhook outbox (`PostgresStore+Webhooks`).
    public func webhookOutbox() -> any WebhookOutboxStore { self }
    /// Wakes idle loops at the COMMIT of any instance's write (`PostgresListener`: `LISTEN`/`NOTIFY`).
    public func changeFeed() -> any StoreChangeFeed { listener }

    /// Disconnects every connection. Further calls fail.
    public func close() throws {
        let first = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        listener.stop()
        pool.close()
        writers.close()
    }

    func ensureOpen() throws {
        if closed.withLock({ $0 }) {
            throw RichPushError(code: .store, message: "the PostgreSQL store \(info.redacted) is closed")
        }
    }

    /// Runs a write on a writer connection (reconnected first when it was lost; see
    /// `PostgresAvailability.run`), again up to 3 times after a deadlock or serialization failure
    /// (the server rolled it back, so nothing is counted twice).
    func write<T>(_ work: (PostgresConnection) throws -> T) throws -> T {
        try ensureOpen()
        return try retrying { try writers.run(work) }
    }

    /// Runs work on a pool connection, with the same retries as `write`; `readOnly` work is also
    /// run once more when its connection was lost (a read is safe to repeat).
    func pooled<T>(readOnly: Bool = false, _ work: (PostgresConnection) throws -> T) throws -> T {
        try ensureOpen()
        return try retrying(repeatAfterLostConnection: readOnly) { try pool.run(work) }
    }

    private func retrying<T>(repeatAfterLostConnection: Bool = false, _ attempt: () throws -> T) throws -> T {
        var retries = 0
        var repeated = false
        while true {
            do {
                return try attempt()
            } catch let error as PostgresError {
                if error.isRetryable && retries < 3 {
                    retries += 1
                    continue
                }
                if error.connectionLost && repeatAfterLostConnection && !repeated && availability.unavailableSince == nil {
                    repeated = true
                    continue
                }
                throw publicError(error)
            }
        }
    }

    /// The error callers see: no host, port or URL (a `503` body goes to anonymous clients; the
    /// log has the details).
    private func publicError(_ error: PostgresError) -> RichPushError {
        if error.connectionLost {
            return RichPushError(code: .storeUnavailable, message: "the PostgreSQL database is unreachable; reconnecting", underlying: error)
        }
        return RichPushError(code: .store, message: "PostgreSQL: \(error.description)", underlying: error)
    }

    // MARK: Health

    /// `true`: the database can be lost while the server runs (`/metrics` shows `richpush_store_up`).
    public var reportsHealth: Bool { true }

    /// Unavailable while the database is known to be down; otherwise a `SELECT 1` at most once a
    /// second (only when nothing else reached the database in that second), which is also what
    /// reconnects an idle instance.
    public func health() -> StoreHealth {
        if closed.withLock({ $0 }) { return StoreHealth(isAvailable: false, reason: "the store is closed") }
        if Date().timeIntervalSince(availability.lastSuccess) >= 1,
            availability.unavailableSince.map({ Date().timeIntervalSince($0) >= availability.retryInterval }) ?? true,
            probeLock.try()
        {
            defer { probeLock.unlock() }
            // Twice: a first probe on a connection the server dropped meanwhile fails after
            // reconnecting it; the second then tells whether the database answers.
            // On receipts: a session holding a lock on it makes the probe time out too
            // (lock_timeout), so /healthz tells while receipts cannot be stored.
            for _ in 0..<2 {
                if (try? pool.runIfIdle({ try $0.execute("SELECT 1 FROM receipts LIMIT 1") })) != nil { break }
            }
        }
        guard let since = availability.unavailableSince else {
            if let stall = availability.deadline.stallReason {
                return StoreHealth(isAvailable: false, reason: "\(stall); receipts get 503 until the database answers in time")
            }
            return .available
        }
        return StoreHealth(
            isAvailable: false,
            reason:
                "database unreachable since \(SQLiteStore.iso8601(Int(since.timeIntervalSince1970 * 1000))); receipts get 503 until it is back (reconnecting)"
        )
    }

}
