import Foundation

/// Sends queued receipts through the pipeline's own `MediaTransport`, with its App Transport
/// Security exceptions.
struct TransportReceiptPoster: ReceiptPoster {
    let transport: any MediaTransport
    let allowedHTTPHosts: Set<String>

    func post(_ receipt: RichPushReceipt, to url: URL, timeout: Double) async -> Int? {
        let sender = ReceiptSender(
            transport: transport, allowedHTTPHosts: allowedHTTPHosts, timeout: .milliseconds(Int(max(0.001, timeout) * 1000))
        )
        return await sender.send(receipt, to: url).httpStatus
    }
}
