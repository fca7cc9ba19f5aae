import Foundation

/// Sends one receipt form-encoded and reports the HTTP status.
///
/// `HTTPFormPoster` is a standalone one (libcurl on Linux, URLSession on Apple platforms) for the
/// app's `flushPendingReceipts`; inside the pipeline the receipts go through the pipeline's own
/// `MediaTransport` and its ATS exceptions.
@_spi(RichPushInternal)
public protocol ReceiptPoster: Sendable {
    /// POSTs the receipt as `application/x-www-form-urlencoded` (`RichPushReceipt.formEncoded()`).
    ///
    /// - Parameters:
    ///   - receipt: the receipt.
    ///   - url: the receipts URL.
    ///   - timeout: the whole request's limit, in seconds.
    /// - Returns: the HTTP status, or `nil` for a network error or timeout.
    func post(_ receipt: RichPushReceipt, to url: URL, timeout: Double) async -> Int?
}
