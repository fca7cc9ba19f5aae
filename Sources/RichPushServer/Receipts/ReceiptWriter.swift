import Foundation
import RichPushCore

/// Group commit: one writer thread takes every receipt queued since its last commit and stores
/// them in ONE transaction; a sync thread then makes the commit durable and only then calls each
/// receipt's completion (which sends the `202`).
///
/// The two threads form a pipeline: while batch N is synced (`ReceiptStore.syncCommitted()`, one
/// `fdatasync` of the SQLite WAL with `synchronous=FULL`), the writer already inserts batch N+1,
/// and one sync covers every batch committed before it started. A receipt is never acknowledged
/// before the COMMIT that contains it has returned *and* a sync after that COMMIT has returned.
///
/// A store that takes several batches at once (`concurrentBatches` > 1, PostgreSQL: one
/// connection each, COMMIT durable on return) gets that many writer threads. One batch is in
/// flight while commits are quick (large batches, the least work per receipt); when one has
/// been in flight for the store's `overlapAfter` (a slow WAL flush, a distant database), the
/// next starts beside it, as SQLite's sync thread overlaps the sync with the next insert.
// @unchecked: the queue and writer state are guarded by `condition`, the committed batches by `syncCondition`
public final class ReceiptWriter: @unchecked Sendable {
    /// What a completion learns about its receipt.
    public enum WriteResult: Sendable, Equatable {
        /// Committed, first time this receipt was seen.
        case stored
        /// Already stored (same `push_id`, `event`, `receipt_id`); nothing written.
        case duplicate
        /// The transaction failed; the receipt was not stored (the client should retry).
        case failed(String)
    }

    private struct Pending {
        let receipt: StoredReceipt
        /// The result, and whether this receipt added its push id to the store.
        let completion: @Sendable (WriteResult, Bool) -> Void
    }

    /// A committed batch waiting for its sync.
    private struct Committed {
        let batch: [Pending]
        let outcomes: [WriteResult]
        /// Per receipt: the first of the batch to name a push id the batch created.
        let createdPush: [Bool]
    }

    private let store: any ReceiptStore
    private let condition = NSCondition()
    private var queue: [Pending] = []
    /// The writer waits (up to the linger) until this many receipts are queued: the clients
    /// just answered plus those already waiting. `submit` signals when the count is reached.
    private var gatherTarget = 1
    private var stopping = false
    /// Writer threads not yet finished.
    private var runningWriters: Int
    private var syncerFinished = false
    private let syncCondition = NSCondition()
    private var committed: [Committed] = []
    /// The most receipts in one transaction (bounds a batch's memory and latency).
    public let maximumBatch: Int
    /// Writer threads (batches in flight at most): the store's `concurrentBatches`, else 1.
    public let writers: Int
    /// With several writers, how long a batch must have been in flight, in seconds, before the
    /// next one starts beside it (the store's `overlapAfter`).
    public let overlapAfter: Double
    /// When each batch in flight started (uptime ns), guarded by `condition`.
    private var inFlightStarts: [UInt64] = []
    /// The longest the writer lingers for just-answered clients to send their next receipt, in
    /// seconds (0 = never wait). The wait is also bounded by the last COMMIT's duration and ends
    /// as soon as they are back, so a lone client never waits.
    public let linger: Double
    private let onBatch: @Sendable (Int) -> Void

    /// Starts the writer and sync threads.
    ///
    /// - Parameters:
    ///   - store: where batches go (one writer thread per batch it
    ///     takes at once).
    ///   - maximumBatch: the most receipts per transaction (default 2,000).
    ///   - linger: the longest wait for just-answered clients before the next commit, in seconds
    ///     (default 0: commit at once).
    ///   - onBatch: called after each batch is durable with its size (for metrics).
    public init(
        store: any ReceiptStore, maximumBatch: Int = 2_000, linger: Double = 0, onBatch: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.store = store
        self.maximumBatch = max(1, maximumBatch)
        self.linger = max(0, linger)
        self.onBatch = onBatch
        writers = max(1, min(store.concurrentBatches, 64))
        overlapAfter = max(0, store.overlapAfter)
        runningWriters = writers
        for index in 0..<writers {
            let writer = Thread { [weak self] in self?.runWriter() }
            writer.name = writers == 1 ? "richpush-receipt-writer" : "richpush-receipt-writer-\(index)"
            writer.start()
        }
        let syncer = Thread { [weak self] in self?.runSyncer() }
        syncer.name = "richpush-receipt-sync"
        syncer.start()
    }

    /// Queues a receipt; `completion` runs on the sync thread after the batch's COMMIT and sync.
    ///
    /// - Parameters:
    ///   - receipt: the receipt.
    ///   - completion: called exactly once, with `.stored`, `.duplicate` or `.failed`, never
    ///     from inside this call.
    /// - Returns: `false` (and `completion` is never called) when the writer is stopping.
    public func submit(_ receipt: StoredReceipt, completion: @escaping @Sendable (WriteResult) -> Void) -> Bool {
        submitReportingPush(receipt) { result, _ in completion(result) }
    }

    /// Queues a receipt as `submit(_:completion:)` does; the completion also learns whether the
    /// receipt added its push id to the store (the per-address budget charges for that).
    ///
    /// - Parameters:
    ///   - receipt: the receipt.
    ///   - completion: called exactly once with the result and whether the push id is new.
    /// - Returns: `false` (and `completion` is never called) when the writer is stopping.
    public func submitReportingPush(_ receipt: StoredReceipt, completion: @escaping @Sendable (WriteResult, Bool) -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if stopping { return false }
        queue.append(Pending(receipt: receipt, completion: completion))
        // One wake-up per batch: when work appears, and when a gathering batch is complete.
        if queue.count == 1 || queue.count == gatherTarget || queue.count == maximumBatch { condition.signal() }
        return true
    }

    /// Queues a receipt and waits until the COMMIT that holds it is durable.
    ///
    /// - Parameter receipt: the receipt.
    /// - Returns: `.stored`, `.duplicate` or `.failed`.
    /// - Throws: `Stopping` when the writer is stopping (nothing was queued).
    public func submit(_ receipt: StoredReceipt) async throws(Stopping) -> WriteResult {
        try await submitReportingPush(receipt).result
    }

    /// Queues a receipt and waits until the COMMIT that holds it is durable.
    ///
    /// - Parameter receipt: the receipt.
    /// - Returns: the result, and whether the receipt added its push id to the store.
    /// - Throws: `Stopping` when the writer is stopping (nothing was queued).
    public func submitReportingPush(_ receipt: StoredReceipt) async throws(Stopping) -> (result: WriteResult, createdPush: Bool) {
        let answer: (WriteResult, Bool)? = await withCheckedContinuation { continuation in
            if !submitReportingPush(receipt, completion: { continuation.resume(returning: ($0, $1)) }) { continuation.resume(returning: nil) }
        }
        guard let answer else { throw Stopping() }
        return (answer.0, answer.1)
    }

    /// The writer is stopping: a receipt submitted now is not queued.
    public struct Stopping: Error, Sendable {}

    /// Commits and syncs what is queued, answers it, stops the threads and waits for them.
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while runningWriters > 0 { condition.wait() }
        condition.unlock()
        syncCondition.lock()
        while !syncerFinished { syncCondition.wait() }
        syncCondition.unlock()
    }

    private func runWriter() {
        var batch: [Pending] = []
        var lastCommit = 0.0
        while true {
            condition.lock()
            repeat {
                while queue.isEmpty && !stopping { condition.wait() }
            } while writers > 1 && !mayStartBeside()
            let wait = min(linger, lastCommit)
            if wait > 0 && !stopping && queue.count < gatherTarget {
                let deadline = Date(timeIntervalSinceNow: wait)
                while queue.count < gatherTarget && !stopping && condition.wait(until: deadline) {}
            }
            if queue.isEmpty && stopping {
                runningWriters -= 1
                condition.broadcast()
                condition.unlock()
                syncCondition.lock()
                syncCondition.broadcast()
                syncCondition.unlock()
                return
            }
            if queue.count <= maximumBatch {
                swap(&batch, &queue)
            } else {
                batch.append(contentsOf: queue.prefix(maximumBatch))
                queue.removeFirst(maximumBatch)
            }
            let started = DispatchTime.now().uptimeNanoseconds
            inFlightStarts.append(started)
            condition.unlock()

            let outcomes: [WriteResult]
            var createdPush = [Bool](repeating: false, count: batch.count)
            do {
                let results = try store.insertReportingPushes(batch.map(\.receipt))
                outcomes = results.isNew.map { $0 ? .stored : .duplicate }
                if !results.newPushIDs.isEmpty {
                    var unclaimed = results.newPushIDs
                    for (index, pending) in batch.enumerated() where unclaimed.remove(pending.receipt.receipt.pushID) != nil {
                        createdPush[index] = true
                    }
                }
            } catch {
                let message = (error as? RichPushError)?.message ?? String(describing: error)
                outcomes = batch.map { _ in .failed(message) }
            }
            lastCommit = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            condition.withLock {
                if let index = inFlightStarts.firstIndex(of: started) { inFlightStarts.remove(at: index) }
                // A writer waiting for this batch to take long may now take the queue at once.
                if writers > 1 { condition.broadcast() }
            }
            syncCondition.lock()
            committed.append(Committed(batch: batch, outcomes: outcomes, createdPush: createdPush))
            if committed.count == 1 { syncCondition.signal() }
            syncCondition.unlock()
            batch = []
            batch.reserveCapacity(64)
        }
    }

    private func runSyncer() {
        var ready: [Committed] = []
        while true {
            syncCondition.lock()
            while committed.isEmpty && !writerFinishedLocked() { syncCondition.wait() }
            if committed.isEmpty {
                syncerFinished = true
                syncCondition.broadcast()
                syncCondition.unlock()
                return
            }
            swap(&ready, &committed)
            syncCondition.unlock()

            // One sync for every batch committed so far; only then is anything acknowledged.
            var syncFailure: String?
            do {
                try store.syncCommitted()
            } catch {
                syncFailure = (error as? RichPushError)?.message ?? String(describing: error)
            }
            var answered = 0
            for item in ready {
                onBatch(item.batch.count)
                answered += item.batch.count
                for (index, pending) in item.batch.enumerated() {
                    if let syncFailure {
                        pending.completion(.failed(syncFailure), false)
                    } else {
                        pending.completion(item.outcomes[index], item.createdPush[index])
                    }
                }
            }
            ready.removeAll(keepingCapacity: true)
            condition.lock()
            // The clients just answered will likely send again; so will those already queued.
            gatherTarget = max(1, min(maximumBatch, answered + queue.count))
            condition.unlock()
        }
    }

    /// With several writers (called with `condition` held and work queued): `true` at once when
    /// no batch is in flight or when stopping; otherwise waits until the oldest batch in flight
    /// has taken `overlapAfter` (its COMMIT is slow: start the next one beside it) or until no
    /// batch is in flight any more, and returns `true` if work is still queued then (`false`:
    /// another writer took it; wait for more). Quick commits thus keep one batch in flight,
    /// large and cheap per receipt; slow ones overlap.
    private func mayStartBeside() -> Bool {
        while !stopping, !queue.isEmpty, let oldest = inFlightStarts.min() {
            let due = oldest + UInt64(overlapAfter * 1e9)
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= due { return true }
            _ = condition.wait(until: Date(timeIntervalSinceNow: Double(due - now) / 1e9))
        }
        return stopping || !queue.isEmpty
    }

    /// Whether every writer thread has finished (takes `condition`; call with `syncCondition`
    /// held only in this order: sync, then writer lock, never the reverse while holding the writer lock).
    private func writerFinishedLocked() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return runningWriters == 0
    }
}
