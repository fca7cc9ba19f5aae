import Foundation

/// The `delivered` receipt on its own, for content another code path built: RichPush beside
/// another vendor's service extension (`RichPushCompanion`), where the vendor's SDK made the
/// content and RichPush only reports what was shown.
@_spi(RichPushInternal)
public enum DisplayReceipt {
    /// Sends the `delivered` receipt for a notification, as the pipeline does: the push id along
    /// `configuration.pushIDKeyPaths`, the vendor (`RichPushVendor.recognise`), through the App Group
    /// queue when `configuration.stateDirectory` is set. Never throws.
    ///
    /// - Parameters:
    ///   - payload: the notification's payload (`userInfo`) as JSON.
    ///   - outcome: what was shown (`media_attached` when it has an attachment, else `text_only`).
    ///   - reason: why media was not attached, if known.
    ///   - elapsedMs: milliseconds from `didReceive` to the content being ready.
    ///   - mediaType: the first attachment's UTType identifier, if any.
    ///   - mediaBytes: its size in bytes, if known.
    ///   - configuration: receipts URL, key paths, ATS exceptions, timeouts, state directory.
    ///   - transport: the HTTP layer.
    /// - Returns: `sent`, `duplicate`, `failed` (with why), or `skipped` with its `skipReason`.
    public static func send(
        payload: RichPushJSONValue, outcome: RichPushOutcome, reason: RichPushReasonCode?, elapsedMs: Int, mediaType: String? = nil, mediaBytes: Int? = nil,
        configuration: RichPushConfiguration, transport: any MediaTransport
    ) async -> RichPushReceiptReport {
        let pushID = RichPushPayloadLookup.pushID(in: payload, keyPaths: configuration.pushIDKeyPaths)?.value
        guard let url = configuration.receiptsURL, let pushID else {
            let skip = RichPushReceiptSkipReason.check(
                payload: payload, pushID: pushID, receiptsURL: configuration.receiptsURL, pushIDKeyPaths: configuration.pushIDKeyPaths)
            return RichPushReceiptReport(status: .skipped, skipReason: skip)
        }
        let receipt = RichPushReceipt(
            pushID: pushID, event: .delivered, receiptID: UUID().uuidString.lowercased(), outcome: outcome, reason: reason,
            elapsedMs: elapsedMs, mediaBytes: mediaBytes, mediaType: mediaType, vendor: RichPushVendor.recognise(payload)?.identifier)
        let sender = ReceiptSender(
            transport: transport, allowedHTTPHosts: configuration.allowedHTTPHosts,
            timeout: .milliseconds(Int(max(0.001, configuration.receiptTimeout) * 1000)))
        return await deliver(receipt, to: url, sender: sender, configuration: configuration)
    }

    /// Sends a receipt through the on-disk queue (stable `receipt_id`, once per push) when a
    /// state directory is configured, else directly.
    static func deliver(_ receipt: RichPushReceipt, to url: URL, sender: ReceiptSender, configuration: RichPushConfiguration) async -> RichPushReceiptReport {
        guard let directory = configuration.stateDirectory else { return await sender.send(receipt, to: url) }
        let delivery = RichPushReceiptDelivery(
            directory: directory, poster: TransportReceiptPoster(transport: sender.transport, allowedHTTPHosts: sender.allowedHTTPHosts))
        do {
            let id = try InstallIdentity(directory: directory).receiptID(for: receipt.pushID)
            let (status, http) = try await delivery.submit(
                receipt, to: url, timeout: configuration.receiptTimeout, identified: configuration.recipientReceipts)
            switch status {
            case .sent: return RichPushReceiptReport(status: .sent, httpStatus: http, receiptID: id)
            case .duplicate: return RichPushReceiptReport(status: .duplicate, receiptID: id)
            default:
                let why: String
                var setting: String?
                if let http {
                    why = "HTTP \(http)"
                } else if !MediaFetcher(transport: sender.transport, allowedHTTPHosts: sender.allowedHTTPHosts).isAllowedByATS(url) {
                    why = ReceiptSender.atsRefusal(url)
                    setting = ReceiptSender.atsSetting(url)
                } else {
                    why = "no answer (connection failed or timed out)"
                }
                return RichPushReceiptReport(
                    status: .failed, httpStatus: http, receiptID: id, error: why + "; queued, retried on a later run", setting: setting)
            }
        } catch {
            return await sender.send(receipt, to: url)
        }
    }
}
