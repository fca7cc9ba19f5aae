import Foundation

/// Receipts that are never lost and counted once: each is queued on disk before it is sent,
/// removed only when the server accepts it, retried with backoff, and sent at most once per push
/// on this installation.
///
/// The extension calls `submit(_:to:timeout:)` for each notification (it also flushes older
/// receipts that are due); the app calls `flushPendingReceipts(timeout:)`, e.g. when it becomes
/// active, with the same App Group directory, and `submit` with an `opened` receipt when the user
/// taps a notification: each event of a push is sent once, all with the push's stable `receipt_id`.
public struct RichPushReceiptDelivery: Sendable {
    /// What happened to the receipt of one notification.
    public struct Status: Sendable, Hashable, CustomStringConvertible, RawRepresentable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The server accepted it (2xx).
        public static let sent = Status(rawValue: "sent")
        /// Not accepted yet; kept in the queue for a later run (or dropped after a final 4xx).
        public static let failed = Status(rawValue: "failed")
        /// Not sent: this push was already reported from this installation.
        public static let duplicate = Status(rawValue: "duplicate")
    }

    /// The shared directory (App Group; here `--state DIR`).
    public let directory: URL
    /// The queue.
    @_spi(RichPushInternal) public let queue: ReceiptQueue
    /// The backoff and retry rules.
    @_spi(RichPushInternal) public let policy: RetryPolicy
    private let poster: any ReceiptPoster

    /// Makes the delivery service of a shared (App Group) container: receipts posted form-encoded
    /// over URLSession (iOS) or libcurl, retried from 1 s doubling to 5 min, with full jitter.
    ///
    /// - Parameter directory: the App Group container's state directory (here `--state DIR`).
    public init(directory: URL) {
        self.init(directory: directory, poster: HTTPFormPoster(), policy: .standard)
    }

    /// Makes a delivery service with its own poster and retry rules (tests, the command line).
    ///
    /// - Parameters:
    ///   - directory: the App Group container (here `--state DIR`).
    ///   - poster: how receipts are sent.
    ///   - policy: backoff and retry rules.
    @_spi(RichPushInternal)
    public init(directory: URL, poster: any ReceiptPoster = HTTPFormPoster(), policy: RetryPolicy = .standard) {
        self.directory = directory
        self.queue = ReceiptQueue(directory: directory)
        self.policy = policy
        self.poster = poster
    }

    /// Queues a notification's receipt (with its stable `receipt_id`) and sends it with every
    /// other due receipt, within `timeout`.
    ///
    /// Once per push and event on this installation: the extension's `delivered` and the app's
    /// `opened` for the same push are each sent once, with the same `receipt_id` (the server counts
    /// each (push_id, event, receipt_id) once).
    ///
    /// - Parameters:
    ///   - receipt: the receipt; its `receiptID` is replaced by the stable one for its push id.
    ///   - url: the receipts URL.
    ///   - timeout: seconds for the sends (keep it inside the notification's deadline).
    ///   - now: the current time.
    ///   - identified: name the device in the receipt (per-device receipts, opt-in) when a device
    ///     credential is saved in the directory (`RichPushReceiptDeviceReference`); default `false`: anonymous.
    /// - Returns: the status of this receipt and the HTTP status of its attempt, if any.
    /// - Throws: `RichPushError` `io` when the state directory cannot be written (the caller then
    ///   sends directly, losing only the retry).
    public func submit(
        _ receipt: RichPushReceipt, to url: URL, timeout: Double, now: Date = Date(), identified: Bool = false
    ) async throws -> (status: Status, httpStatus: Int?) {
        // `delivered` keeps the bare push id as its key (entries written before events had keys).
        let seenKey = receipt.event == .delivered ? receipt.pushID : "\(receipt.event.rawValue):\(receipt.pushID)"
        guard try SeenPushStore(directory: directory).markSeen(seenKey, now: now) else {
            return (.duplicate, nil)
        }
        var stamped = receipt
        stamped.receiptID = try InstallIdentity(directory: directory).receiptID(for: receipt.pushID)
        if identified, let reference = RichPushReceiptDeviceReference.load(from: directory) { stamped = reference.stamp(stamped) }
        try queue.enqueue(PendingReceipt(receipt: stamped, url: url.absoluteString, queuedAt: now.timeIntervalSince1970), now: now)
        let report = try await flushPendingReceipts(timeout: timeout)
        let id = ReceiptQueue.entryName(stamped)
        if let status = report.sent[id] { return (.sent, status) }
        if let status = report.dropped[id] { return (.failed, status) }
        if let status = report.kept[id] { return (.failed, status) }
        return (.failed, nil)
    }

    /// Sends every due queued receipt, concurrently, each within `timeout`; removes those the
    /// server accepted (2xx) or refused for good (4xx other than 408/429), and reschedules the
    /// rest with backoff and jitter.
    ///
    /// - Parameter timeout: seconds each request may take (default 10).
    /// - Returns: what was sent, kept and dropped.
    /// - Throws: `RichPushError` `io` when the queue cannot be read or written.
    @discardableResult
    public func flushPendingReceipts(timeout: Double = 10) async throws -> RichPushReceiptFlushReport {
        let claimed = try queue.claimDue(now: Date(), lease: timeout + 5)
        var report = RichPushReceiptFlushReport()
        let poster = self.poster
        let results = await withTaskGroup(of: (PendingReceipt, Int?).self) { group in
            for entry in claimed {
                group.addTask {
                    guard let url = URL(string: entry.url) else { return (entry, 400) }
                    return (entry, await poster.post(entry.receipt, to: url, timeout: timeout))
                }
            }
            var all: [(PendingReceipt, Int?)] = []
            for await result in group { all.append(result) }
            return all
        }
        for (entry, status) in results {
            let decision = policy.decision(for: status)
            try queue.finish(entry, decision: decision, policy: policy, now: Date())
            let id = ReceiptQueue.entryName(entry.receipt)
            switch decision {
            case .delivered: report.sent[id] = status ?? 200
            case .retry: report.kept[id] = status
            case .drop: report.dropped[id] = status ?? 0
            }
        }
        report.remaining = try queue.entries().count
        return report
    }
}
