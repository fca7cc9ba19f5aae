import Foundation
import RichPushCore

/// Group commit: one writer thread takes every receipt queued since its last commit, stores them
/// in ONE transaction, and only then calls each receipt's completion (which sends the `202`).
///
/// While a batch commits, new receipts queue up and form the next batch, so under load one
/// COMMIT (and, with `synchronous=FULL`, one fsync) covers many receipts. A receipt is never
/// acknowledged before the COMMIT that contains it has returned.
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
        let completion: @Sendable (WriteResult) -> Void
    }

    private let store: any ReceiptStore
    private let condition = NSCondition()
    private var queue: [Pending] = []
    private var stopping = false
    private var finished = false
    private var thread: Thread?
    /// The most receipts in one transaction (bounds a batch's memory and latency).
    public let maximumBatch: Int
    /// How long the writer lingers for more receipts before committing a small batch, in
    /// seconds (0 = commit at once). A short linger makes fewer, larger transactions under load.
    public let linger: Double
    private let onBatch: @Sendable (Int) -> Void

    /// Starts the writer thread.
    ///
    /// - Parameters:
    ///   - store: where batches go.
    ///   - maximumBatch: the most receipts per transaction (default 2,000).
    ///   - linger: seconds to wait for more receipts before committing a small batch (default 0).
    ///   - onBatch: called after each commit with the batch size (for metrics).
    public init(
        store: any ReceiptStore, maximumBatch: Int = 2_000, linger: Double = 0, onBatch: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.store = store
        self.maximumBatch = max(1, maximumBatch)
        self.linger = max(0, linger)
        self.onBatch = onBatch
        let thread = Thread { [weak self] in self?.run() }
        thread.name = "richpush-receipt-writer"
        self.thread = thread
        thread.start()
    }

    /// Queues a receipt; `completion` runs on the writer thread after the batch's COMMIT.
    ///
    /// - Parameters:
    ///   - receipt: the receipt.
    ///   - completion: called exactly once, with `.stored`, `.duplicate` or `.failed`, never
    ///     from inside this call.
    /// - Returns: `false` (and `completion` is never called) when the writer is stopping.
    public func submit(_ receipt: StoredReceipt, completion: @escaping @Sendable (WriteResult) -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if stopping { return false }
        queue.append(Pending(receipt: receipt, completion: completion))
        // Wake the writer when work appears, and again when a lingering batch is full.
        if queue.count == 1 || queue.count >= maximumBatch { condition.signal() }
        return true
    }

    /// Commits what is queued, stops the thread and waits for it.
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopping { condition.wait() }
            if linger > 0 && !stopping && queue.count < maximumBatch {
                let deadline = Date(timeIntervalSinceNow: linger)
                while queue.count < maximumBatch && !stopping && condition.wait(until: deadline) {}
            }
            if queue.isEmpty && stopping {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let take = min(queue.count, maximumBatch)
            let batch = Array(queue.prefix(take))
            queue.removeFirst(take)
            condition.unlock()

            let outcomes: [WriteResult]
            do {
                let results = try store.insert(batch.map(\.receipt))
                outcomes = results.map { $0 ? .stored : .duplicate }
            } catch {
                let message = (error as? RichPushError)?.message ?? String(describing: error)
                outcomes = batch.map { _ in .failed(message) }
            }
            onBatch(batch.count)
            for (pending, outcome) in zip(batch, outcomes) { pending.completion(outcome) }
        }
    }
}
