import Foundation

/// One structured log line per notification (article 004: time to download, file size, result),
/// as a single-line JSON object.
///
/// It holds only identifiers, codes and numbers: never the payload's text (title, body, URLs),
/// never ciphertext, never a key.
@_spi(RichPushInternal)
public struct NotificationLogLine: Sendable, Equatable {
    /// The push id, when the payload has one.
    public var pushID: String?
    /// The outcome (`media_attached`, `text_only`, `original`).
    public var outcome: RichPushOutcome
    /// The reason, when media was not attached.
    public var reason: RichPushReasonCode?
    /// A finer code, e.g. the decrypt sub-reason `bad_tag` or `invalid_buttons`.
    public var detail: String?
    /// Attachments made.
    public var attachments: Int
    /// Media URLs the payload named.
    public var mediaRequested: Int
    /// Bytes of media attached.
    public var bytes: Int
    /// Milliseconds spent fetching media (0 when none was fetched).
    public var fetchMs: Int
    /// Milliseconds from the start to delivery.
    public var totalMs: Int
    /// Media served from the cache.
    public var cacheHits: Int
    /// The receipt's status (`sent`, `failed`, `skipped`, `duplicate`), if any.
    public var receipt: String?
    /// Why no receipt was sent (`RichPushReceiptSkipReason.Code`: `no_push_id`, `no_receipts_url`, …).
    public var receiptSkip: String?
    /// Whose payload it was (`RichPushVendor.identifier`), if a known vendor's.
    public var vendor: String?

    /// Makes a line.
    /// - Parameters:
    ///   - pushID: the push id.
    ///   - outcome: the outcome.
    ///   - reason: the reason.
    ///   - detail: a finer code.
    ///   - attachments: attachments made.
    ///   - mediaRequested: media URLs named.
    ///   - bytes: media bytes attached.
    ///   - fetchMs: fetch time in ms.
    ///   - totalMs: total time in ms.
    ///   - cacheHits: cache hits.
    ///   - receipt: the receipt status.
    ///   - receiptSkip: why no receipt was sent.
    ///   - vendor: the vendor's identifier.
    public init(
        pushID: String?, outcome: RichPushOutcome, reason: RichPushReasonCode?, detail: String? = nil, attachments: Int = 0,
        mediaRequested: Int = 0, bytes: Int = 0, fetchMs: Int = 0, totalMs: Int, cacheHits: Int = 0, receipt: String? = nil,
        receiptSkip: String? = nil, vendor: String? = nil
    ) {
        self.pushID = pushID
        self.outcome = outcome
        self.reason = reason
        self.detail = detail
        self.attachments = attachments
        self.mediaRequested = mediaRequested
        self.bytes = bytes
        self.fetchMs = fetchMs
        self.totalMs = totalMs
        self.cacheHits = cacheHits
        self.receipt = receipt
        self.receiptSkip = receiptSkip
        self.vendor = vendor
    }

    /// The line: `{"event":"richpush.notification","push_id":…,"outcome":…,…}` with sorted keys
    /// and `null` for absent values.
    public var rendered: String {
        var object: [String: RichPushJSONValue] = [
            "event": .string("richpush.notification"),
            "push_id": pushID.map { .string(String($0.prefix(RichPushReceipt.Limits.identifierBytes))) } ?? .null,
            "outcome": .string(outcome.rawValue),
            "reason": reason.map { .string($0.rawValue) } ?? .null,
            "detail": detail.map { .string($0) } ?? .null,
            "attachments": .int(attachments),
            "media_requested": .int(mediaRequested),
            "bytes": .int(bytes),
            "fetch_ms": .int(fetchMs),
            "total_ms": .int(totalMs),
            "cache_hits": .int(cacheHits),
        ]
        object["receipt"] = receipt.map { .string($0) } ?? .null
        object["receipt_skip"] = receiptSkip.map { .string($0) } ?? .null
        object["vendor"] = vendor.map { .string($0) } ?? .null
        return String(decoding: RichPushJSONValue.object(object).jsonData(sortedKeys: true), as: UTF8.self)
    }
}

extension NotificationLogLine {
    /// The line for a delivered result: its identifiers, codes and numbers (the decryption
    /// sub-reason and the ignored payload parts as `detail`).
    /// - Parameter result: what the pipeline delivered.
    init(_ result: RichPushResult) {
        let d = result.details
        let detail = ([d.decryption].compactMap { $0 }.filter { $0 != "decrypted" } + d.notes).joined(separator: ",")
        self.init(
            pushID: result.pushID, outcome: result.outcome, reason: result.reason, detail: detail.isEmpty ? nil : detail,
            attachments: result.content.attachments.count, mediaRequested: d.mediaRequested,
            bytes: result.content.attachments.reduce(0) { $0 + $1.bytes }, fetchMs: d.fetchMs, totalMs: result.elapsedMs,
            cacheHits: d.cacheHits, receipt: result.receipt.status.rawValue, receiptSkip: result.receipt.skipReason?.code.rawValue,
            vendor: result.vendor?.identifier)
    }
}
