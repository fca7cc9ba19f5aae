import Foundation

/// The on-disk queue of receipts not yet accepted by the receipts server, shared by extension
/// processes and the app (App Group container; here `--state DIR`).
///
/// One JSON file per receipt in `receipts/`, named by its `receipt_id` and event (`entryName`, so
/// queueing the same push's same event twice keeps one entry), changed only under `flock` on `receipts.lock` and written by atomic
/// rename. Bounded: entries older than `maximumAge` are dropped, and beyond `maximumEntries` the
/// oldest are dropped first. A sender *claims* due entries (moves their `notBefore` past its own
/// timeout) before sending outside the lock, so two processes flushing at once never send the
/// same receipt twice.
@_spi(RichPushInternal)
public struct ReceiptQueue: Sendable {
    /// At most 500 queued receipts (our bound: a few hundred KB in the App Group).
    public static let defaultMaximumEntries = 500
    /// Receipts older than 7 days (in seconds) are dropped: the statistics no longer need them.
    public static let defaultMaximumAge: Double = 7 * 24 * 60 * 60

    /// The shared directory (the queue lives in its `receipts/` folder).
    public let directory: URL
    /// The bound on the number of entries.
    public let maximumEntries: Int
    /// The bound on an entry's age, in seconds.
    public let maximumAge: Double

    private var folder: URL { directory.appendingPathComponent("receipts") }
    private var lock: FileLock { FileLock(url: directory.appendingPathComponent("receipts.lock")) }

    /// Makes a queue.
    /// - Parameters:
    ///   - directory: the App Group container (here `--state DIR`).
    ///   - maximumEntries: at most this many entries (default 500).
    ///   - maximumAge: seconds an entry is kept (default 7 days).
    public init(directory: URL, maximumEntries: Int = ReceiptQueue.defaultMaximumEntries, maximumAge: Double = ReceiptQueue.defaultMaximumAge) {
        self.directory = directory
        self.maximumEntries = max(1, maximumEntries)
        self.maximumAge = maximumAge
    }

    /// Adds a receipt (it must carry a `receiptID`), unless one with the same id is queued.
    ///
    /// - Parameters:
    ///   - entry: the entry.
    ///   - now: the current time.
    /// - Returns: `false` when an entry with the same receipt id was already queued.
    /// - Throws: `RichPushError` `io` when the queue cannot be written.
    @discardableResult
    public func enqueue(_ entry: PendingReceipt, now: Date = Date()) throws -> Bool {
        try lock.withLock {
            let file = fileURL(entry.receipt)
            if FileManager.default.fileExists(atPath: file.path) { return false }
            try AtomicFile.write(try JSONEncoder().encode(entry), to: file)
            prune(now: now)
            return true
        }
    }

    /// Every queued entry, oldest first.
    ///
    /// - Returns: the entries.
    /// - Throws: `RichPushError` `io` when the lock cannot be taken.
    public func entries() throws -> [PendingReceipt] {
        try lock.withLock { readAll().map(\.entry) }
    }

    /// Claims the entries due now: their `notBefore` moves `lease` seconds ahead, so no other
    /// sender takes them while this one sends.
    ///
    /// - Parameters:
    ///   - now: the current time.
    ///   - lease: seconds the claim lasts (longer than the send's timeout).
    /// - Returns: the claimed entries, oldest first.
    /// - Throws: `RichPushError` `io` when the queue cannot be written.
    public func claimDue(now: Date = Date(), lease: Double) throws -> [PendingReceipt] {
        try lock.withLock {
            prune(now: now)
            var claimed: [PendingReceipt] = []
            for (file, var entry) in readAll() where entry.notBefore <= now.timeIntervalSince1970 {
                entry.notBefore = now.timeIntervalSince1970 + lease
                try AtomicFile.write(try JSONEncoder().encode(entry), to: file)
                claimed.append(entry)
            }
            return claimed
        }
    }

    /// Records the answer to one attempt: removes the entry when delivered or dropped, or counts
    /// the failure and schedules the next attempt after the policy's backoff.
    ///
    /// - Parameters:
    ///   - entry: the claimed entry.
    ///   - decision: what the attempt's answer means.
    ///   - policy: the backoff.
    ///   - now: the current time.
    /// - Throws: `RichPushError` `io` when the queue cannot be written.
    public func finish(_ entry: PendingReceipt, decision: RetryPolicy.Decision, policy: RetryPolicy, now: Date = Date()) throws {
        try lock.withLock {
            let file = fileURL(entry.receipt)
            switch decision {
            case .delivered, .drop:
                try? FileManager.default.removeItem(at: file)
            case .retry:
                guard FileManager.default.fileExists(atPath: file.path) else { return }
                var updated = entry
                updated.attempts += 1
                updated.notBefore = now.timeIntervalSince1970 + policy.delay(afterAttempts: updated.attempts)
                try AtomicFile.write(try JSONEncoder().encode(updated), to: file)
            }
        }
    }

    // MARK: - Under the lock

    private func fileURL(_ receipt: RichPushReceipt) -> URL {
        let id = Self.entryName(receipt)
        let safe = !id.isEmpty && id.count <= 128 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        return folder.appendingPathComponent("\(safe ? id : SHA256Hash.hex(id)).json")
    }

    /// The name of a receipt's queue entry (and its key in `RichPushReceiptFlushReport`): its `receipt_id`
    /// (the push id without one) for `delivered`, with `-<event>` appended for other events, so a
    /// push's `delivered` and `opened` are two entries.
    ///
    /// - Parameter receipt: the receipt.
    /// - Returns: e.g. `3f2a…` or `3f2a…-opened`.
    public static func entryName(_ receipt: RichPushReceipt) -> String {
        let id = receipt.receiptID ?? receipt.pushID
        return receipt.event == .delivered ? id : "\(id)-\(receipt.event.rawValue)"
    }

    private func readAll() -> [(file: URL, entry: PendingReceipt)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var result: [(file: URL, entry: PendingReceipt)] = []
        for name in names where name.hasSuffix(".json") {
            let file = folder.appendingPathComponent(name)
            if let data = AtomicFile.read(file), let entry = try? JSONDecoder().decode(PendingReceipt.self, from: data) {
                result.append((file, entry))
            } else {
                // An unreadable entry can never be sent; removing it keeps the queue bounded.
                try? FileManager.default.removeItem(at: file)
            }
        }
        return result.sorted { $0.entry.queuedAt < $1.entry.queuedAt }
    }

    private func prune(now: Date) {
        var all = readAll()
        for item in all where now.timeIntervalSince1970 - item.entry.queuedAt > maximumAge {
            try? FileManager.default.removeItem(at: item.file)
        }
        all.removeAll { now.timeIntervalSince1970 - $0.entry.queuedAt > maximumAge }
        if all.count > maximumEntries {
            for item in all.prefix(all.count - maximumEntries) {
                try? FileManager.default.removeItem(at: item.file)
            }
        }
    }
}
