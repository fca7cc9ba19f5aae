import Foundation

/// Posts a `RichPushReceipt` form-encoded (`push_id` first, article 000's format) and reports the result.
struct ReceiptSender: Sendable {
    let transport: any MediaTransport
    let allowedHTTPHosts: Set<String>
    let timeout: Duration

    /// Sends the receipt; never throws.
    /// - Returns: `sent` with the status for a 2xx, else `failed`.
    func send(_ receipt: RichPushReceipt, to url: URL) async -> RichPushReceiptReport {
        let ats = MediaFetcher(transport: transport, allowedHTTPHosts: allowedHTTPHosts)
        guard ats.isAllowedByATS(url) else {
            return RichPushReceiptReport(status: .failed, receiptID: receipt.receiptID, error: Self.atsRefusal(url), setting: Self.atsSetting(url))
        }
        do {
            let status = try await transport.post(
                to: url, body: Data(receipt.formEncoded().utf8),
                contentType: "application/x-www-form-urlencoded", timeout: timeout
            )
            let sent = (200..<300).contains(status)
            return RichPushReceiptReport(
                status: sent ? .sent : .failed, httpStatus: status == 0 ? nil : status, receiptID: receipt.receiptID,
                error: sent ? nil : (status == 0 ? "no HTTP status" : "HTTP \(status)"))
        } catch {
            return RichPushReceiptReport(status: .failed, receiptID: receipt.receiptID, error: Self.describe(error))
        }
    }

    /// Why App Transport Security refuses a receipts URL, in a few words.
    static func atsRefusal(_ url: URL) -> String {
        if url.scheme?.lowercased() == "http" {
            let host = url.host ?? "this host"
            return
                "insecure_scheme: http to \(host) needs an ATS exception (\(host) in AllowedHTTPHosts and NSAppTransportSecurity of the extension's Info.plist)"
        }
        return "insecure_scheme: \(url.scheme ?? "no scheme") is not http(s)"
    }

    /// The setting that lets the receipts URL through ATS (`allowedHTTPHosts`), for an http URL.
    static func atsSetting(_ url: URL) -> String? { url.scheme?.lowercased() == "http" ? "allowedHTTPHosts" : nil }

    /// A transport error in a few words (`connection refused`, `timeout`).
    static func describe(_ error: any Error) -> String {
        if let error = error as? MediaTransportError {
            let message = error.message.trimmingCharacters(in: .whitespacesAndNewlines)
            return message.isEmpty ? error.code.rawValue : message
        }
        return String(describing: error)
    }
}
