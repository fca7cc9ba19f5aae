import Foundation

/// How `richpush serve` runs campaigns (`--campaign-workers`, `--campaign-lease-seconds`,
/// `--campaign-chunk-size`, `--campaign-targets-days`).
public struct CampaignSettings: Sendable, Equatable {
    /// Sender workers per instance (default 2; 0 = this instance sends no campaign, it only
    /// takes and answers requests). Each works on one leased chunk at a time.
    public var workers = 2
    /// How long a chunk's lease holds without renewal, seconds (default 30): after an instance
    /// dies, its chunks are taken over this long after its last renewal. A worker renews before
    /// every send, so a lease must outlast one provider round trip of a chunk's batch.
    public var leaseSeconds: Double = 30
    /// Targets per chunk (default 500, at most 10,000): the unit a worker leases, and the most a
    /// crash can leave in flight per worker.
    public var chunkSize = 500
    /// How often an idle worker looks for work, ms (default 250): a scheduled campaign starts
    /// within this much of its `send_at`. On PostgreSQL an idle worker waits for a notification
    /// or its next timer instead, and looks at least every `notifiedPollMs`.
    public var pollMs = 250
    /// On PostgreSQL, the fallback poll of an idle worker, ms (default 5,000): what it looks at
    /// without a notification or a timer (a notification lost while the `LISTEN` session was down).
    public var notifiedPollMs = 5_000

    /// How long the per-token targets of a finished or cancelled campaign are kept, days
    /// (`--campaign-targets-days`, default 30; 0 = forever). After that they are deleted in
    /// batches of `purgeBatch` rows; the campaign and its counters stay.
    public var targetsRetentionDays = 30
    /// Target rows deleted per transaction (default 5,000): each batch holds the write lock
    /// (SQLite) or its row locks (PostgreSQL) for one short `DELETE`.
    public var purgeBatch = 5_000
    /// How often an instance's workers look for targets to delete, ms (default 1 h).
    public var purgeIntervalMs = 3_600_000

    /// The longest retention `serve` accepts, days (10 years).
    public static let maximumRetentionDays = 3_650
    /// The bounds `serve` checks.
    public static let maximumWorkers = 64
    /// The largest chunk.
    public static let maximumChunkSize = 10_000

    /// The defaults.
    public init() {}
}
