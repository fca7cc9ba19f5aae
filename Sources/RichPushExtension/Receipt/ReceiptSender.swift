import Foundation

/// Posts a `Receipt` form-encoded (`push_id` first, article 000's format) and reports the result.
struct ReceiptSender: Sendable {
    let transport: any MediaTransport
    let allowedHTTPHosts: Set<String>
    let timeout: Duration

    /// Sends the receipt; never throws.
    /// - Returns: `sent` with the status for a 2xx, else `failed`.
    func send(_ receipt: Receipt, to url: URL) async -> ReceiptReport {
        let ats = MediaFetcher(transport: transport, allowedHTTPHosts: allowedHTTPHosts)
        guard ats.isAllowedByATS(url) else {
            return ReceiptReport(status: .failed, receiptID: receipt.receiptID)
        }
        do {
            let status = try await transport.post(
                to: url, body: Data(receipt.formEncoded().utf8),
                contentType: "application/x-www-form-urlencoded", timeout: timeout
            )
            return ReceiptReport(status: (200..<300).contains(status) ? .sent : .failed, httpStatus: status == 0 ? nil : status, receiptID: receipt.receiptID)
        } catch {
            return ReceiptReport(status: .failed, receiptID: receipt.receiptID)
        }
    }
}
