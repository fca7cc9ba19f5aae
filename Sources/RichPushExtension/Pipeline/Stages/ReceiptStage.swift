import Foundation

/// The last stage: once the outcome is decided, the `delivered` receipt (through the shared
/// container's queue when there is one, so it is sent once per push and retried on later runs),
/// or, when this run sends none, the receipts earlier runs queued.
struct ReceiptStage: Sendable {
    let configuration: RichPushConfiguration
    let transport: any MediaTransport

    /// Sends the receipt for a decided result.
    /// - Parameters:
    ///   - result: the decided result.
    ///   - json: the payload (after decryption), to say why there is no receipt.
    ///   - receiptID: the run's receipt id (the queue replaces it with the stable one).
    /// - Returns: the task that ends with the receipt's report, or the report at once when none is sent.
    func send(_ result: RichPushResult, payload json: RichPushJSONValue?, receiptID: String) -> ReceiptSending {
        guard let url = configuration.receiptsURL, let pushID = result.pushID else {
            let skip = RichPushReceiptSkipReason.check(
                payload: json, pushID: result.pushID, receiptsURL: configuration.receiptsURL, pushIDKeyPaths: configuration.pushIDKeyPaths)
            let skipped = RichPushReceiptReport(status: .skipped, skipReason: skip)
            return .skipped(skipped, flushing: flushQueued(returning: skipped))
        }
        let receipt = RichPushReceipt(
            pushID: pushID, event: .delivered, receiptID: receiptID, outcome: result.outcome, reason: result.reason,
            elapsedMs: result.elapsedMs, mediaBytes: result.content.attachments.first?.bytes,
            mediaType: result.content.attachments.first?.type, vendor: result.vendor?.identifier)
        let sender = ReceiptSender(
            transport: transport, allowedHTTPHosts: configuration.allowedHTTPHosts,
            timeout: .milliseconds(Int(max(0.001, configuration.receiptTimeout) * 1000)))
        let configuration = self.configuration
        return .sending(Task { await DisplayReceipt.deliver(receipt, to: url, sender: sender, configuration: configuration) })
    }

    /// Sends receipts queued by earlier runs (when this run sends none of its own); the task
    /// ends with `skipped`, this run's own report.
    private func flushQueued(returning skipped: RichPushReceiptReport) -> Task<RichPushReceiptReport, Never>? {
        guard let directory = configuration.stateDirectory else { return nil }
        let poster = TransportReceiptPoster(transport: transport, allowedHTTPHosts: configuration.allowedHTTPHosts)
        let timeout = configuration.receiptTimeout
        return Task {
            _ = try? await RichPushReceiptDelivery(directory: directory, poster: poster).flushPendingReceipts(timeout: timeout)
            return skipped
        }
    }
}

/// What `ReceiptStage.send` started.
enum ReceiptSending: Sendable {
    /// No receipt for this run: its report, and the flush of earlier runs' queue, if any.
    case skipped(RichPushReceiptReport, flushing: Task<RichPushReceiptReport, Never>?)
    /// The receipt is on its way: the task ends with its report.
    case sending(Task<RichPushReceiptReport, Never>)
}
