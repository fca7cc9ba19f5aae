import Foundation
@_spi(RichPushInternal) import RichPushCore

/// What a store's change feed reports: a write gave idle background loops work.
public enum StoreChange: String, Sendable, CaseIterable {
    /// Campaign work: a campaign created or started, a chunk handed back with targets left.
    case campaigns
    /// A webhook event written to the outbox.
    case webhooks
}

/// Wake-ups from the store (`ReceiptStore.changeFeed()`): an idle campaign worker or webhook
/// loop reads `generation(of:)` before it looks for work and, finding none, waits for the next
/// change instead of polling the store. PostgreSQL's feed is `LISTEN`/`NOTIFY`, so every
/// instance on the database is woken at the COMMIT of any instance's write; SQLite's is in
/// process (one process writes the file). A wait always ends at its timeout too (the fallback
/// poll), and returns early on a graceful shutdown.
public protocol StoreChangeFeed: AnyObject, Sendable {
    /// Whether every writer's changes reach this feed (`false`: a store without a feed; its
    /// callers poll at their fast interval).
    var seesEveryWriter: Bool { get }

    /// How many wake-ups `change` has had (starts the feed on first use).
    ///
    /// - Parameter change: the kind of change.
    /// - Returns: the count, to pass to `wait(for:sinceGeneration:timeoutMs:)`.
    func generation(of change: StoreChange) -> Int

    /// Waits until `change` happens after `generation` was read, `timeoutMs` passes, or a
    /// graceful shutdown is requested.
    ///
    /// - Parameters:
    ///   - change: the kind of change.
    ///   - generation: what `generation(of:)` answered before the caller last looked for work.
    ///   - timeoutMs: the fallback poll's interval, ms.
    /// - Returns: `true` when woken by a change, `false` at the timeout (or the shutdown).
    func wait(for change: StoreChange, sinceGeneration generation: Int, timeoutMs: Int) async -> Bool
}

/// The generations of a change feed and the waits on them (both stores' feeds keep theirs here).
final class ChangeGenerations: Sendable {
    private let counts = Locked<[StoreChange: Int]>([:])

    /// The count of `change`.
    func generation(of change: StoreChange) -> Int { counts.withLock { $0[change] ?? 0 } }

    /// Counts one wake-up of each of `changes`.
    func bump(_ changes: some Sequence<StoreChange>) {
        counts.withLock { counts in
            for change in changes { counts[change, default: 0] += 1 }
        }
    }

    /// Waits (checking every 20 ms: no query, no system call beyond a sleep) until `change`'s
    /// count moves past `generation`, the timeout, `stopped()`, or a graceful shutdown.
    func wait(for change: StoreChange, sinceGeneration generation: Int, timeoutMs: Int, stopped: () -> Bool = { false }) async -> Bool {
        let clock = ContinuousClock()
        let end = clock.now + .milliseconds(max(0, timeoutMs))
        while clock.now < end {
            if self.generation(of: change) != generation { return true }
            if stopped() || GracefulShutdown.isRequested { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return self.generation(of: change) != generation
    }
}

/// The feed of a store that has none: nothing wakes a wait before its timeout, so callers poll.
final class PollingChangeFeed: StoreChangeFeed {
    private let generations = ChangeGenerations()
    var seesEveryWriter: Bool { false }
    func generation(of change: StoreChange) -> Int { 0 }
    func wait(for change: StoreChange, sinceGeneration generation: Int, timeoutMs: Int) async -> Bool {
        await generations.wait(for: change, sinceGeneration: generation, timeoutMs: timeoutMs)
    }
}

/// SQLite's feed: the store's own writes, announced after their COMMIT, to every store object
/// of this process on the same file (one process writes a SQLite file).
final class LocalChangeFeed: StoreChangeFeed {
    private let generations = ChangeGenerations()
    var seesEveryWriter: Bool { true }

    /// The feed of the database file at `path` (one per file in this process).
    ///
    /// - Parameter path: the file.
    /// - Returns: its feed.
    static func forFile(_ path: String) -> LocalChangeFeed {
        let key = URL(fileURLWithPath: path).standardizedFileURL.path
        return feeds.withLock { feeds in
            if let feed = feeds[key] { return feed }
            let feed = LocalChangeFeed()
            feeds[key] = feed
            return feed
        }
    }

    private static let feeds = Locked<[String: LocalChangeFeed]>([:])

    /// Announces committed changes.
    ///
    /// - Parameter changes: what the COMMIT gave work for.
    func publish(_ changes: Set<StoreChange>) {
        guard !changes.isEmpty else { return }
        generations.bump(changes)
    }

    func generation(of change: StoreChange) -> Int { generations.generation(of: change) }

    func wait(for change: StoreChange, sinceGeneration generation: Int, timeoutMs: Int) async -> Bool {
        await generations.wait(for: change, sinceGeneration: generation, timeoutMs: timeoutMs)
    }
}
